package memcloudtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/go-logr/logr"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/scope/scopetest"
)

// Options configure StartProvider.
type Options struct {
	// Cloud options, e.g. cloud.WithSeed, cloud.WithFaults, cloud.WithPendingGets.
	Cloud []cloud.Option
	// PollInterval is the controllers' poll interval; default 100ms.
	PollInterval time.Duration
	// Logger receives the manager's logs; default: discarded.
	Logger logr.Logger
	// WebhooksOnly starts the webhooks without the controllers, for tests that call the reconcilers
	// themselves.
	WebhooksOnly bool
}

// Provider is memcloud's controller manager running in-process against an Environment, with its own
// in-memory cloud.
type Provider struct {
	// Cloud is the provider's cloud.
	Cloud *cloud.Cloud
	// Writes counts the API writes the controllers make.
	Writes *scopetest.CountingClient
	// Manager is the running manager.
	Manager ctrl.Manager

	cancel context.CancelFunc
	done   chan error
}

// StartProvider starts a manager with memcloud's controllers and webhooks on env and a new cloud, and waits
// until its caches are synced and its webhook server answers. Stop it with Stop.
func StartProvider(ctx context.Context, env *testenv.Environment, o Options) (*Provider, error) {
	if env == nil {
		return nil, errors.New("cannot start the provider: environment is nil")
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 100 * time.Millisecond
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	ctrl.SetLogger(o.Logger)
	cl, err := cloud.New(o.Cloud...)
	if err != nil {
		return nil, err
	}
	wo := env.WebhookInstallOptions()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Logger:                 o.Logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
		// As cmd/manager: the unstructured core Cluster and Machine come from the informer cache.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir,
		}),
	})
	if err != nil {
		return nil, fmt.Errorf("cannot create the manager: %w", err)
	}
	writes := scopetest.NewCountingClient(mgr.GetClient())
	if !o.WebhooksOnly {
		if err := controllers.SetupWithManager(mgr, cl, controllers.WithClient(writes), controllers.WithPollInterval(o.PollInterval)); err != nil {
			return nil, err
		}
	}
	if err := webhooks.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &Provider{Cloud: cl, Writes: writes, Manager: mgr, cancel: cancel, done: make(chan error, 1)}
	go func() { p.done <- mgr.Start(runCtx) }()
	if err := p.waitReady(ctx); err != nil {
		_ = p.Stop()
		return nil, err
	}
	return p, nil
}

// waitReady waits, at most 30s, until the caches are synced and the webhook server answers.
func (p *Provider) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !p.Manager.GetCache().WaitForCacheSync(ctx) {
		return errors.New("cannot start the provider: caches did not sync within 30s")
	}
	check := p.Manager.GetWebhookServer().StartedChecker()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := check(&http.Request{}); err == nil {
			return nil
		}
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("cannot start the provider: manager stopped: %w", err)
		case <-ctx.Done():
			return errors.New("cannot start the provider: webhook server not serving within 30s")
		case <-tick.C:
		}
	}
}

// Stop stops the manager and returns its error. It is safe to call more than once.
func (p *Provider) Stop() error {
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	p.cancel = nil
	return <-p.done
}

// LeakChecker returns the lifecycle.LeakChecker of the provider's cloud; see LeakChecker.
func (p *Provider) LeakChecker() lifecycle.LeakChecker { return LeakChecker(p.Cloud) }
