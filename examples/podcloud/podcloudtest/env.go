package podcloudtest

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/go-logr/logr"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/controllers"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope/scopetest"
)

// ConfigDir returns podcloud's config folder (CRDs, webhook manifests), found from this package's source.
func ConfigDir() (string, error) { return testenv.SourceDir("../config") }

// TestEnv is podcloud as a testenv.Provider, its config folder and scheme: TestEnv().NewEnvironment() starts
// an API server for podcloud, TestEnv().Main(m, &env) does it in a TestMain.
func TestEnv() testenv.Provider {
	dir, _ := ConfigDir() // a folder that cannot be found fails in TestEnv().Options, with the path
	return testenv.Provider{ConfigDir: dir, AddToScheme: []func(*kruntime.Scheme) error{v1beta2.AddToScheme}}
}

// Zones are the zones of the fake nodes StartNodes creates, one node each.
var Zones = []string{"zone-a", "zone-b", "zone-c"}

// StartNodes starts the real kube-scheduler and KWOK against env with one fake node per zone of Zones
// ("node-a" in "zone-a", ...). Stop them with Stop.
func StartNodes(ctx context.Context, env *testenv.Environment) (*testenv.FakeNodes, error) {
	nodes := make([]testenv.NodeSpec, 0, len(Zones))
	for _, z := range Zones {
		nodes = append(nodes, testenv.NodeSpec{Name: "node-" + z[len("zone-"):], Zone: z})
	}
	return env.StartFakeNodes(ctx, nodes...)
}

// Options configure StartProvider.
type Options struct {
	// PollInterval is the controllers' requeue, Ensure's poll interval and the resync period
	// (reconcile.WithPollInterval, reconcile.WithResyncPeriod); default 100ms.
	PollInterval time.Duration
	// Logger receives the manager's logs; default: discarded.
	Logger logr.Logger
	// Controllers are more controller options, e.g. controllers.WithTarget.
	Controllers []controllers.Option
}

// Provider is podcloud's controller manager running in-process against an Environment, with the
// Environment as its target cluster.
type Provider struct {
	// Writes counts the writes the controllers make to the management cluster (not the target's).
	Writes *scopetest.CountingClient
	*testenv.Manager
}

// StartProvider starts a manager with podcloud's controllers and webhooks on env (testenv.StartManager).
// Stop it with Stop.
func StartProvider(ctx context.Context, env *testenv.Environment, o Options) (*Provider, error) {
	poll := cmp.Or(o.PollInterval, 100*time.Millisecond)
	var writes *scopetest.CountingClient
	m, err := env.StartManager(ctx, o.Logger, func(mgr ctrl.Manager) error {
		writes = scopetest.NewCountingClient(mgr.GetClient())
		opts := append([]controllers.Option{controllers.WithClient(writes), controllers.WithReconcileOptions(
			reconcile.WithPollInterval(poll), reconcile.WithResyncPeriod(poll))}, o.Controllers...)
		return errors.Join(controllers.SetupWithManager(mgr, opts...), webhooks.SetupWithManager(mgr))
	})
	if err != nil {
		return nil, err
	}
	return &Provider{Writes: writes, Manager: m}, nil
}
