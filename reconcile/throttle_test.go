package reconcile_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/metrics"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// TestThrottledStepIsRequeuedNotFailed: a step the cloud throttles is not an error (no backoff of
// controller-runtime, no TransientError): it is requeued after a backoff that doubles while the throttling
// lasts, never sooner than the cloud's hint, bounded, with jitter, and that starts again after a reconcile
// that is not throttled.
func TestThrottledStepIsRequeuedNotFailed(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, _ := newFooCluster(t, ns, false, nil)
	f := newClusterFixture(t)
	throttled := testutil.ToFloat64(metrics.ReconcileThrottled.WithLabelValues("FooCluster"))

	f.lbErr = step.Throttled(errors.New("429 Too Many Requests"), 2*time.Second)
	res, err := f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err, "throttling is not a failure")
	assert.GreaterOrEqual(t, res.RequeueAfter, 2*time.Second, "the cloud's hint, longer than the first backoff")
	assert.LessOrEqual(t, res.RequeueAfter, 3*time.Second, "plus at most 50% jitter")
	c := meta.FindStatusCondition(get(t, obj).Status.Conditions, "LoadBalancerReady")
	require.NotNil(t, c)
	assert.Equal(t, conditions.ReasonThrottled, c.Reason)
	assert.Equal(t, "the cloud throttled the provider's calls; retrying with backoff", c.Message,
		"a message that does not change from one throttled reconcile to the next: no status patch, no new watch event")

	f.lbErr = step.Throttled(errors.New("slow down"), 0)
	var waits []time.Duration
	for range 3 {
		res, err = f.r.Reconcile(ctx, req(obj))
		require.NoError(t, err)
		waits = append(waits, res.RequeueAfter)
	}
	// The hinted reconcile counted as the first: without hints the backoff doubles from ThrottleBackoffBase.
	for i, base := range []time.Duration{2 * reconcile.ThrottleBackoffBase, 4 * reconcile.ThrottleBackoffBase, 8 * reconcile.ThrottleBackoffBase} {
		assert.GreaterOrEqual(t, waits[i], base, "wait %d", i)
		assert.LessOrEqual(t, waits[i], base+base/2, "wait %d", i)
	}
	assert.Equal(t, throttled+4, testutil.ToFloat64(metrics.ReconcileThrottled.WithLabelValues("FooCluster")))

	f.lbErr = nil
	_, err = f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	f.lbErr = step.Throttled(errors.New("slow down"), 0)
	res, err = f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.LessOrEqual(t, res.RequeueAfter, reconcile.ThrottleBackoffBase+reconcile.ThrottleBackoffBase/2, "the backoff starts again after a success")

	f.lbErr = step.Throttled(errors.New("slow down"), time.Hour)
	res, err = f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.LessOrEqual(t, res.RequeueAfter, reconcile.ThrottleBackoffMax+reconcile.ThrottleBackoffMax/2, "bounded even with a long hint")
}

func TestIsThrottled(t *testing.T) {
	assert.NoError(t, step.Throttled(nil, time.Second))
	err := step.Throttled(errors.New("429"), 3*time.Second)
	joined := errors.Join(errors.New("cannot create"), err)
	assert.True(t, step.IsThrottled(joined))
	var throttled *step.ThrottledError
	require.ErrorAs(t, joined, &throttled)
	assert.Equal(t, 3*time.Second, throttled.RetryAfter)
	assert.False(t, step.IsThrottled(errors.New("boom")))
	assert.EqualError(t, err, "throttled by the cloud: 429")
}

// TestEnsureRecordsMetricsAndWaitsForTheRateLimiter: the cloud calls of Ensure and EnsureDeleted are
// counted by resource, operation and outcome, their actions counted, and, with WithRateLimiter, each waits
// for a token of the shared limiter.
func TestEnsureRecordsMetricsAndWaitsForTheRateLimiter(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, _ := newFooCluster(t, ns, false, nil)
	cloud := fakecloud.New()
	limiters, err := ratelimit.New(20, 1) // one call at once, then one every 50ms
	require.NoError(t, err)
	var waited []time.Duration
	limiters.OnWait(func(d time.Duration) { waited = append(waited, d) })
	network := reconcile.ServiceFuncs[clusterScope]{
		ReconcileFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
			_, err := ensure.Exists(ctx, s, "metered-vpc", cloud, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
			return step.Result{Done: err == nil}, err
		},
		DeleteFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
			return ensure.Deleted(ctx, s, "metered-vpc", cloud)
		},
	}
	r, err := reconcile.NewClusterReconcilerFor(env.Client, &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{{Name: "Network", Service: network}},
		reconcile.WithRateLimiter(limiters), reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	require.NoError(t, err)
	// The metrics are the process's: count from what earlier runs of the test (go test -count=2) left.
	callsBefore, actionsBefore := map[string]float64{}, map[string]float64{}
	for _, op := range []string{"get", "find", "create"} {
		for _, outcome := range []string{metrics.OutcomeOK, metrics.OutcomeNotFound, metrics.OutcomeThrottled} {
			callsBefore[op+outcome] = testutil.ToFloat64(metrics.CloudCalls.WithLabelValues("metered-vpc", op, outcome))
		}
	}
	for _, a := range []string{"created", "found"} {
		actionsBefore[a] = testutil.ToFloat64(metrics.EnsureActions.WithLabelValues("metered-vpc", a))
	}
	calls := func(op, outcome string) float64 {
		return testutil.ToFloat64(metrics.CloudCalls.WithLabelValues("metered-vpc", op, outcome)) - callsBefore[op+outcome]
	}
	actions := func(a string) float64 {
		return testutil.ToFloat64(metrics.EnsureActions.WithLabelValues("metered-vpc", a)) - actionsBefore[a]
	}

	_, err = r.Reconcile(ctx, req(obj)) // find by tags (nothing), create
	require.NoError(t, err)
	_, err = r.Reconcile(ctx, req(obj)) // get (found)
	require.NoError(t, err)
	assert.Equal(t, 1.0, calls("find", metrics.OutcomeNotFound))
	assert.Equal(t, 1.0, calls("create", metrics.OutcomeOK))
	assert.Equal(t, 1.0, calls("get", metrics.OutcomeOK))
	assert.Equal(t, 1.0, actions("created"))
	assert.Equal(t, 1.0, actions("found"))
	require.Len(t, waited, 3, "every cloud call waited for the limiter")
	assert.Greater(t, waited[1]+waited[2], 50*time.Millisecond, "the calls after the burst waited for tokens")

	// A short hint: the call is retried in place, and the reconcile finishes.
	cloud.FailNext["Get"] = step.Throttled(errors.New("429"), 10*time.Millisecond)
	res, err := r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Zero(t, res.RequeueAfter, "retried in place after the hint")
	assert.Equal(t, 1.0, calls("get", metrics.OutcomeThrottled))
	assert.Equal(t, 2.0, calls("get", metrics.OutcomeOK))
	// A hint longer than maxInlineThrottleWait: the reconcile is requeued instead of holding its worker.
	cloud.FailNext["Get"] = step.Throttled(errors.New("429"), 5*time.Second)
	res, err = r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, res.RequeueAfter, 5*time.Second)
	assert.Equal(t, 2.0, calls("get", metrics.OutcomeThrottled))
}

// TestThrottledBackoffStartsAgainAfterProgress: a reconcile that changed something in the cloud before it was
// throttled does not grow the backoff, so an object that needs more calls than a burst moves at the cloud's
// pace instead of sleeping longer and longer.
func TestThrottledBackoffStartsAgainAfterProgress(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, _ := newFooCluster(t, ns, false, nil)
	f := newClusterFixture(t)
	f.lbErr = step.Throttled(errors.New("slow down"), 0)
	for i := range 4 {
		f.cloud.Mu.Lock()
		clear(f.cloud.Nets) // the network is gone each time: Ensure creates it again, a change in the cloud
		f.cloud.Mu.Unlock()
		res, err := f.r.Reconcile(ctx, req(obj))
		require.NoError(t, err)
		assert.LessOrEqual(t, res.RequeueAfter, reconcile.ThrottleBackoffBase+reconcile.ThrottleBackoffBase/2, "reconcile %d", i)
	}
}
