package manager_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/manager"
)

// checksManager is a manager that records the checks added to it; every other method panics.
type checksManager struct {
	ctrl.Manager
	server                webhook.Server
	healthz, readyz       map[string]healthz.Checker
	healthzErr, readyzErr error
	webhookServerCalls    int
}

func (m *checksManager) AddHealthzCheck(name string, check healthz.Checker) error {
	if m.healthzErr != nil {
		return m.healthzErr
	}
	m.healthz[name] = check
	return nil
}

func (m *checksManager) AddReadyzCheck(name string, check healthz.Checker) error {
	if m.readyzErr != nil {
		return m.readyzErr
	}
	m.readyz[name] = check
	return nil
}

func (m *checksManager) GetWebhookServer() webhook.Server {
	m.webhookServerCalls++
	return m.server
}

func newChecksManager() *checksManager {
	return &checksManager{server: webhook.NewServer(webhook.Options{Port: 9443}),
		healthz: map[string]healthz.Checker{}, readyz: map[string]healthz.Checker{}}
}

// AddChecks adds the /healthz ping and a /readyz check that fails until the webhook server has started.
func TestAddChecks(t *testing.T) {
	m := newChecksManager()
	require.NoError(t, manager.AddChecks(m))
	require.Len(t, m.healthz, 1)
	require.Len(t, m.readyz, 1)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "/readyz", nil)
	require.NoError(t, err)
	require.Contains(t, m.healthz, "healthz")
	assert.NoError(t, m.healthz["healthz"](req), "the health check is a ping")
	require.Contains(t, m.readyz, "readyz")
	assert.ErrorContains(t, m.readyz["readyz"](req), "not been started", "ready once the webhook server serves")
	assert.Equal(t, 1, m.webhookServerCalls, "the readiness check is the manager's own webhook server's")

	refused := errors.New("refused")
	m = newChecksManager()
	m.healthzErr = refused
	err = manager.AddChecks(m)
	assert.ErrorIs(t, err, refused)
	assert.ErrorContains(t, err, "cannot add the health check")

	m = newChecksManager()
	m.readyzErr = refused
	err = manager.AddChecks(m)
	assert.ErrorIs(t, err, refused)
	assert.ErrorContains(t, err, "cannot add the readiness check")
}

// A main that builds its manager by hand and calls AddChecks serves /healthz and /readyz at
// --health-probe-bind-address once the manager runs: /readyz once its webhook server serves.
func TestAddChecksServesProbes(t *testing.T) {
	env, err := testenv.NewEnvironment(testenv.WithoutCAPICRDs())
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	wo := env.WebhookInstallOptions()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	probe := l.Addr().String()
	require.NoError(t, l.Close())

	var f manager.Flags
	require.NoError(t, f.Parse([]string{"--health-probe-bind-address=" + probe, "--webhook-port=" + strconv.Itoa(wo.LocalServingPort),
		"--webhook-cert-dir=" + wo.LocalServingCertDir}, manager.Defaults{LeaderElectionID: "x"}, nil))
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	mgr, err := ctrl.NewManager(env.Config, f.Options(scheme))
	require.NoError(t, err)
	require.NoError(t, manager.AddChecks(mgr))
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-stopped, "a manager stopped by its context stops cleanly")
	})

	for _, path := range []string{"/healthz", "/readyz"} {
		assert.EventuallyWithT(t, func(c *assert.CollectT) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+probe+path, nil)
			require.NoError(c, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(c, err)
			_ = resp.Body.Close()
			assert.Equal(c, http.StatusOK, resp.StatusCode)
		}, 30*time.Second, 100*time.Millisecond, "%s is served and passes", path)
	}
}
