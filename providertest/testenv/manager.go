package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// Manager is a controller-runtime manager running in-process against an Environment, as a provider's
// manager runs in a cluster: its webhooks served where the Environment registered them. Stop it with Stop.
type Manager struct {
	ctrl.Manager
	cancel context.CancelFunc
	done   chan error
}

// StartManager creates a manager on e (the Environment's scheme, no metrics or health endpoints, the
// unstructured Cluster API objects served from the cache as a provider's cmd/manager does), lets setup
// register the provider's controllers and webhooks, starts it and waits, at most 30s, until its caches are
// synced and its webhook server answers. logger receives the manager's logs (logr.Discard() when zero).
func (e *Environment) StartManager(ctx context.Context, logger logr.Logger, setup func(ctrl.Manager) error) (*Manager, error) {
	if e == nil || setup == nil {
		return nil, errors.New("cannot start the manager: the environment and setup must not be nil")
	}
	if logger.GetSink() == nil {
		logger = logr.Discard()
	}
	wo := e.WebhookInstallOptions()
	mgr, err := ctrl.NewManager(e.Config, ctrl.Options{
		Scheme:                  e.Scheme,
		Logger:                  logger,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		GracefulShutdownTimeout: ptr.To(15 * time.Second),
		Controller:              ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
		Client:                  client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir,
		}),
	})
	if err != nil {
		return nil, fmt.Errorf("cannot create the manager: %w", err)
	}
	if err := setup(mgr); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &Manager{Manager: mgr, cancel: cancel, done: make(chan error, 1)}
	go func() { m.done <- mgr.Start(runCtx) }()
	if err := m.waitReady(ctx); err != nil {
		return nil, errors.Join(err, m.Stop())
	}
	return m, nil
}

// waitReady waits, at most 30s, until the caches are synced and the webhook server answers.
func (m *Manager) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !m.GetCache().WaitForCacheSync(ctx) {
		return errors.New("cannot start the manager: caches did not sync within 30s")
	}
	check := m.GetWebhookServer().StartedChecker()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := check(&http.Request{}); err == nil {
			return nil
		}
		select {
		case err := <-m.done:
			m.done <- err
			return fmt.Errorf("cannot start the manager: it stopped: %w", err)
		case <-ctx.Done():
			return errors.New("cannot start the manager: webhook server not serving within 30s")
		case <-tick.C:
		}
	}
}

// Stop stops the manager (its context is cancelled, as when a provider's pod is killed) and returns its
// error. It is safe to call more than once.
func (m *Manager) Stop() error {
	if m.cancel == nil {
		return nil
	}
	m.cancel()
	m.cancel = nil
	return <-m.done
}
