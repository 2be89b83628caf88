package bench_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
		rc.reqs = append(rc.reqs, r.Method+" "+r.URL.Path)
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

// startCountedProvider starts memcloud's manager on the shared environment with every HTTP request it sends
// counted, and stops it when tb ends.
func startCountedProvider(tb testing.TB) (*testenv.Environment, *memcloudtest.Provider, *requestCounter) {
	tb.Helper()
	env := sharedEnv(tb)
	rc := &requestCounter{}
	counted := *env
	counted.Config = countedConfig(env.Config, rc)
	p, err := memcloudtest.StartProvider(context.Background(), &counted, memcloudtest.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := p.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return env, p, rc
}
