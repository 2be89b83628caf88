package bench_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest/testenv"
)

// The envtest API server is started by the first test or benchmark that needs it: BenchmarkPatch runs on
// the fake client and does not wait for it.
var (
	envOnce sync.Once
	envVal  *testenv.Environment
	envErr  error
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	code := m.Run()
	if envVal != nil {
		if err := envVal.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		}
	}
	os.Exit(code)
}

// sharedEnv returns the API server with memcloud's CRDs and webhooks and capkit's minimal Cluster API CRDs
// (memcloudtest.TestEnv().NewEnvironment). Its webhooks are served by a manager the caller starts (memcloudtest.StartProvider).
func sharedEnv(tb testing.TB) *testenv.Environment {
	tb.Helper()
	envOnce.Do(func() { envVal, envErr = memcloudtest.TestEnv().NewEnvironment() })
	if envErr != nil {
		tb.Fatalf("cannot start envtest: %v", envErr)
	}
	return envVal
}

// requestCounter counts the HTTP requests sent through a rest.Config it wraps: every read and write,
// whatever the client above it does.
type requestCounter struct {
	mu   sync.Mutex
	reqs []string
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (rc *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rc.mu.Lock()
		req := r.Method + " " + r.URL.Path
		if r.URL.RawQuery != "" {
			req += "?" + r.URL.RawQuery
		}
		rc.reqs = append(rc.reqs, req)
		rc.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

// take returns the requests recorded since the last take and forgets them.
func (rc *requestCounter) take() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := rc.reqs
	rc.reqs = nil
	return out
}

// countedConfig returns a copy of cfg whose requests rc counts.
func countedConfig(cfg *rest.Config, rc *requestCounter) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(rc.wrap)
	return out
}

// countingClient returns a direct (uncached) client on env whose HTTP requests rc counts.
func countingClient(tb testing.TB, env *testenv.Environment) (client.Client, *requestCounter) {
	tb.Helper()
	rc := &requestCounter{}
	c, err := client.New(countedConfig(env.Config, rc), client.Options{Scheme: env.Scheme})
	if err != nil {
		tb.Fatalf("cannot create the counting client: %v", err)
	}
	return c, rc
}

// countedProvider is memcloud's manager, its controllers reconciling the objects with the watch-filter label
// capkitFleet, and in the same manager the floor controller (floorFleet), on one cloud.
type countedProvider struct {
	*memcloudtest.Provider
	floor *floor
}

// startCountedProvider starts a countedProvider on the shared environment and a new cloud, with every HTTP
// request of its manager counted, and stops it when tb ends.
func startCountedProvider(tb testing.TB) (*testenv.Environment, *countedProvider, *requestCounter) {
	tb.Helper()
	env := sharedEnv(tb)
	cl, err := cloud.New()
	if err != nil {
		tb.Fatal(err)
	}
	rc := &requestCounter{}
	return env, startCountedOn(tb, tb, env, cl, rc), rc
}

// startCountedOn starts a countedProvider on env and cloud cl whose HTTP requests rc counts, and stops it
// when owner ends (Stop may stop it earlier): owner is tb, or the benchmark whose sub-benchmark tb restarts
// the provider for the next ones.
func startCountedOn(tb, owner testing.TB, env *testenv.Environment, cl *cloud.Cloud, rc *requestCounter) *countedProvider {
	tb.Helper()
	counted := *env
	counted.Config = countedConfig(env.Config, rc)
	cp := &countedProvider{}
	setup := func(mgr ctrl.Manager) (err error) {
		cp.floor, err = setupFloor(mgr, cl)
		return err
	}
	p, err := memcloudtest.StartProvider(context.Background(), &counted, memcloudtest.Options{Shared: cl, WatchFilter: capkitFleet, Setup: setup})
	if err != nil {
		tb.Fatal(err)
	}
	cp.Provider = p
	owner.Cleanup(func() {
		if err := p.Stop(); err != nil {
			owner.Error(err)
		}
	})
	return cp
}

// isListOrWatch reports whether a request recorded by requestCounter is a list or a watch of a collection
// (what informers send), not a read of one object, a write or an event.
func isListOrWatch(req string) bool {
	method, rest, _ := strings.Cut(req, " ")
	path, _, _ := strings.Cut(rest, "?")
	if method != http.MethodGet {
		return false
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	// /api/v1/<res>, /api/v1/namespaces/<ns>/<res>, /apis/<g>/<v>/<res>, /apis/<g>/<v>/namespaces/<ns>/<res>
	n := len(parts)
	switch parts[0] {
	case "api":
		n--
	case "apis":
		n -= 2
	default:
		return false
	}
	return n == 2 || (n == 4 && parts[len(parts)-3] == "namespaces")
}

// isDiscovery reports whether a request recorded by requestCounter is API discovery (/api, /apis, or a group
// version's resource list), which a REST mapper sends once per process for the groups its clients use.
func isDiscovery(req string) bool {
	method, rest, _ := strings.Cut(req, " ")
	path, _, _ := strings.Cut(rest, "?")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if method != http.MethodGet {
		return false
	}
	switch parts[0] {
	case "api":
		return len(parts) <= 2
	case "apis":
		return len(parts) <= 3
	}
	return false
}
