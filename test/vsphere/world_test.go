package vsphere_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/test/internal/capienv"
)

// world is what the providers share in one run: envtest's API server (env), the real Cluster API managers, one
// simulator serving vCenter's REST API too, and a stand-in for guest tools that gives every running VM an address.
type world struct {
	sim *vspheretest.Simulator
	dir string
}

// guestToolsEvery is how often the stand-in for guest tools looks for VMs without an address.
const guestToolsEvery = 250 * time.Millisecond

func newWorld(tb testing.TB) *world {
	tb.Helper()
	capienv.StartT(tb, env.Config, env.Client, capienv.AllComponents)
	w := &world{sim: vspheretest.New(tb, vspheretest.WithVAPI()), dir: tb.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(guestToolsEvery):
			}
			_, _ = w.sim.PlayGuestTools() // a VM destroyed between list and read is no error of the provider's
		}
	}()
	tb.Cleanup(func() { cancel(); <-done })
	return w
}

// provider is one infrastructure provider under test: how to start its manager, and its objects.
type provider struct {
	name string
	// manager returns the manager's binary.
	manager func(tb testing.TB) string
	// args returns the manager's flags besides those of startManager.
	args func(tb testing.TB, r *running) []string
	// capiFlags says that the manager takes Cluster API's manager flags (capienv.Args), not capkit's.
	capiFlags bool
	// group and version of the infrastructure objects.
	group, version string
	// infraCluster and infraMachine return the provider's objects of a cluster and its machine.
	infraCluster func(ns, name string, e *vspheretest.Endpoint) *unstructured.Unstructured
	infraMachine func(ns, name string) *unstructured.Unstructured
	// prepare creates what the provider's clusters in ns need besides their objects (a credentials Secret).
	prepare func(ctx context.Context, w *world, ns string) error
}

// running is a provider's manager on the world: its vCenter endpoint and API server proxy count what it asks
// of either, across restarts.
type running struct {
	provider
	w     *world
	tb    testing.TB
	env   *testenv.Environment // the management cluster the manager runs on
	vc    *vspheretest.Endpoint
	k8s   *capienv.Proxy
	dir   string
	proc  *capienv.Process
	usage []capienv.Usage // of the managers stopped so far
	n     int
}

// start starts p's manager on w, on the package's API server (env), stopped when tb ends.
func (w *world) start(tb testing.TB, p provider) *running { return w.startOn(tb, env, p) }

// startOn starts p's manager on w with management cluster e, stopped when tb ends. Its files are in a folder named
// after p: give two managers of a test different names.
func (w *world) startOn(tb testing.TB, e *testenv.Environment, p provider) *running {
	tb.Helper()
	k8s, err := capienv.StartProxy(e.Config)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(k8s.Close)
	r := &running{provider: p, w: w, tb: tb, env: e, vc: w.sim.Endpoint(), k8s: k8s, dir: filepath.Join(w.dir, p.name)}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if r.proc != nil {
			if err := r.proc.Stop(10 * time.Second); err != nil && !errors.Is(err, capienv.ErrExited) {
				tb.Errorf("%s: %v", p.name, err)
			}
			if tb.Failed() {
				tb.Logf("%s's manager log, last 40 lines:\n%s", p.name, r.proc.Tail(40))
			}
		}
	})
	r.startManager()
	return r
}

// startManager starts the manager process and waits until it is ready.
func (r *running) startManager() {
	r.tb.Helper()
	kc, err := capienv.Kubeconfig(r.k8s.Config, r.name)
	if err != nil {
		r.tb.Fatal(err)
	}
	kubeconfig := filepath.Join(r.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		r.tb.Fatal(err)
	}
	certDir := filepath.Join(r.dir, "certs")
	if _, err := capienv.WriteServingCertificate(certDir); err != nil {
		r.tb.Fatal(err)
	}
	ports, err := capienv.FreePorts(3)
	if err != nil {
		r.tb.Fatal(err)
	}
	health := "127.0.0.1:" + strconv.Itoa(ports[0])
	var args []string
	if r.capiFlags {
		args = capienv.Args(kubeconfig, health, "127.0.0.1:"+strconv.Itoa(ports[1]), ports[2], certDir)
	} else {
		args = []string{"--kubeconfig=" + kubeconfig, "--leader-elect=false", "--health-probe-bind-address=" + health,
			"--metrics-bind-address=0", "--webhook-port=" + strconv.Itoa(ports[2]), "--webhook-cert-dir=" + certDir}
	}
	args = append(args, r.args(r.tb, r)...)
	r.n++
	proc, err := capienv.StartProcess(r.name, r.manager(r.tb), args, filepath.Join(r.dir, fmt.Sprintf("manager-%d.log", r.n)))
	if err != nil {
		r.tb.Fatal(err)
	}
	r.proc = proc
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := capienv.WaitReady(ctx, proc, health); err != nil {
		r.tb.Fatalf("%s: %v\n%s", r.name, err, proc.Tail(40))
	}
}

// stop stops the manager, keeping what it used.
func (r *running) stop() {
	r.tb.Helper()
	r.keepUsage()
	if err := r.proc.Stop(10 * time.Second); err != nil {
		r.tb.Errorf("%s: %v", r.name, err)
	}
	r.proc = nil
}

func (r *running) keepUsage() {
	r.tb.Helper()
	u, err := r.proc.Usage()
	if err != nil {
		r.tb.Fatal(err)
	}
	r.usage = append(r.usage, u)
}

// used returns the CPU time of every manager of r, and the largest peak memory of any, the running one included.
func (r *running) used() capienv.Usage {
	r.tb.Helper()
	all := r.usage
	if r.proc != nil {
		u, err := r.proc.Usage()
		if err != nil {
			r.tb.Fatal(err)
		}
		all = append(all, u)
	}
	var out capienv.Usage
	for _, u := range all {
		out.CPU += u.CPU
		out.PeakRSS = max(out.PeakRSS, u.PeakRSS)
	}
	return out
}
