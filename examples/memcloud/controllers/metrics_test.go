package controllers_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile"
)

// TestManagerServesCloudMetrics runs memcloud's controllers in a manager with its metrics endpoint on, lets
// them provision a cluster through a shared rate limiter on a cloud whose own limit is tighter (so it
// throttles), and scrapes the endpoint as Prometheus would: the metrics every capkit provider gets are there,
// by resource kind, operation and outcome, throttled calls included.
func TestManagerServesCloudMetrics(t *testing.T) {
	ctx := context.Background()
	addr := freeAddr(t)
	cl := memcloudtest.NewCloud(t, cloud.WithSeed(5), cloud.WithRateLimit(30, 5)) // tighter than the limiter: the cloud throttles
	limiters, err := ratelimit.New(200, 20)
	require.NoError(t, err)
	wo := env.WebhookInstallOptions()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: addr},
		HealthProbeBindAddress: "0", Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
		WebhookServer: webhook.NewServer(webhook.Options{Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir})})
	require.NoError(t, err)
	// snippet:start setup
	require.NoError(t, controllers.SetupWithManager(mgr, cl, controllers.WithReconcileOptions(reconcile.WithPollInterval(50*time.Millisecond), reconcile.WithRateLimiter(limiters))))
	require.NoError(t, webhooks.SetupWithManager(mgr))
	// snippet:end setup
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	require.Eventually(t, func() bool { return mgr.GetWebhookServer().StartedChecker()(&http.Request{}) == nil }, 30*time.Second, 50*time.Millisecond)

	ns := env.Namespace(t, "controllers")
	d, err := lifecycle.New(env.Client, memcloudtest.LifecycleSpec(memcloudtest.Cluster{Namespace: ns, Name: "scraped", ControlPlane: 1, Workers: 1}, memcloudtest.LeakChecker(cl)))
	require.NoError(t, err)
	require.NoError(t, d.Create(ctx))
	require.NoError(t, d.WaitProvisioned(ctx))

	body := scrape(t, "http://"+addr+"/metrics")
	for _, want := range []string{
		`capkit_cloud_calls_total{operation="create",outcome="ok",resource="network"}`,
		`capkit_cloud_calls_total{operation="create",outcome="ok",resource="instance"}`,
		`capkit_cloud_calls_total{operation="find",outcome="not_found",resource="load-balancer"}`,
		`capkit_cloud_call_duration_seconds_bucket{operation="get",resource="instance",le=`,
		`capkit_ensure_actions_total{action="created",resource="security-group"}`,
		`capkit_ratelimit_wait_seconds_count`,
		`outcome="throttled"`,
		`capkit_reconcile_throttled_total{kind="MemMachine"}`,
	} {
		assert.True(t, strings.Contains(body, want), "the endpoint serves %s", want)
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "capkit_") {
			assert.NotContains(t, line, ns, "no object or namespace in the labels: %s", line)
			assert.NotContains(t, line, "scraped", "no object or namespace in the labels: %s", line)
		}
	}
	require.NoError(t, d.Delete(ctx))
	assert.True(t, strings.Contains(scrape(t, "http://"+addr+"/metrics"), `capkit_ensure_actions_total{action="deleted",resource="instance"}`),
		"deletes are counted")
}

// freeAddr returns a 127.0.0.1 address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = l.Close() }()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// scrape returns the body of a metrics endpoint, retrying until the server answers.
func scrape(t *testing.T, url string) string {
	t.Helper()
	var body string
	require.Eventually(t, func() bool {
		resp, err := http.Get(url) //nolint:noctx // a test's scrape
		if err != nil {
			return false
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		body = string(b)
		return err == nil && resp.StatusCode == http.StatusOK
	}, 10*time.Second, 50*time.Millisecond)
	return body
}
