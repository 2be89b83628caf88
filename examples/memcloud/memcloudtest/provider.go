package memcloudtest

import (
	"cmp"
	"context"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope/scopetest"
)

// Options configure StartProvider.
type Options struct {
	// Cloud options, e.g. cloud.WithSeed, cloud.WithFaults, cloud.WithPendingGets.
	Cloud []cloud.Option
	// PollInterval is the controllers' requeue and Ensure's poll interval (reconcile.WithPollInterval);
	// default 100ms.
	PollInterval time.Duration
	// Logger receives the manager's logs; default: discarded.
	Logger logr.Logger
	// WebhooksOnly starts the webhooks (and the in-place update extension) without the controllers, for
	// tests that call the reconcilers themselves.
	WebhooksOnly bool
	// Shared runs the provider on this cloud instead of a new one (Cloud is then ignored): a cloud outlives
	// a provider, e.g. across a restart or a clusterctl move.
	Shared *cloud.Cloud
	// RateLimiter makes every cloud call of the controllers wait on it (reconcile.WithRateLimiter).
	RateLimiter *ratelimit.Limiters
	// IdentityNamespace turns identities on (controllers.WithIdentities): MemClusterIdentities' credentials
	// Secrets are read from this namespace.
	IdentityNamespace string
	// WatchFilter makes the controllers reconcile only the objects whose cluster.x-k8s.io/watch-filter label
	// has this value (reconcile.WithWatchFilter); empty: every object.
	WatchFilter string
	// Setup registers more controllers with the manager before it starts, e.g. another provider's sharing
	// the same caches.
	Setup func(ctrl.Manager) error
}

// Provider is memcloud's controller manager running in-process against an Environment, with its own
// in-memory cloud.
type Provider struct {
	// Cloud is the provider's cloud.
	Cloud *cloud.Cloud
	// Writes counts the API writes the controllers make.
	Writes *scopetest.CountingClient
	// Manager is the running manager; Stop stops it.
	*testenv.Manager
}

// StartProvider starts a manager with memcloud's controllers and webhooks on env and a new cloud
// (testenv.StartManager), and waits until its caches are synced and its webhook server answers. The webhook
// server also serves memcloud's in-place update extension (controllers.SetupInPlaceExtension) on envtest's
// webhook port, for an ExtensionConfig whose clientConfig.url is that port. Stop it with Stop.
func StartProvider(ctx context.Context, env *testenv.Environment, o Options) (*Provider, error) {
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	ctrl.SetLogger(o.Logger)
	cl := o.Shared
	if cl == nil {
		var err error
		if cl, err = cloud.New(o.Cloud...); err != nil {
			return nil, err
		}
	}
	ropts := []reconcile.Option{reconcile.WithPollInterval(cmp.Or(o.PollInterval, 100*time.Millisecond))}
	if o.RateLimiter != nil {
		ropts = append(ropts, reconcile.WithRateLimiter(o.RateLimiter))
	}
	if o.WatchFilter != "" {
		ropts = append(ropts, reconcile.WithWatchFilter(o.WatchFilter))
	}
	copts := []controllers.Option{controllers.WithReconcileOptions(ropts...)}
	if o.IdentityNamespace != "" {
		copts = append(copts, controllers.WithIdentities(o.IdentityNamespace, nil))
	}
	p := &Provider{Cloud: cl}
	var err error
	p.Manager, err = env.StartManager(ctx, o.Logger, func(mgr ctrl.Manager) error {
		p.Writes = scopetest.NewCountingClient(mgr.GetClient())
		if !o.WebhooksOnly {
			if err := controllers.SetupWithManager(mgr, cl, append(copts, controllers.WithClient(p.Writes))...); err != nil {
				return err
			}
		}
		if err := webhooks.SetupWithManager(mgr); err != nil {
			return err
		}
		if o.Setup != nil {
			if err := o.Setup(mgr); err != nil {
				return err
			}
		}
		return controllers.SetupInPlaceExtension(mgr, cl, copts...)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// LeakChecker returns the lifecycle.LeakChecker of the provider's cloud; see LeakChecker.
func (p *Provider) LeakChecker() lifecycle.LeakChecker { return LeakChecker(p.Cloud) }
