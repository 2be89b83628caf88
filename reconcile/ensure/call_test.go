package ensure_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/metrics"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
)

// callCounts reads capkit_cloud_calls_total of kind and op by outcome.
func callCounts(kind, op string) map[string]float64 {
	byOutcome := map[string]float64{}
	for _, o := range []string{metrics.OutcomeOK, metrics.OutcomeNotFound, metrics.OutcomeThrottled, metrics.OutcomeError} {
		byOutcome[o] = testutil.ToFloat64(metrics.CloudCalls.WithLabelValues(kind, op, o))
	}
	return byOutcome
}

// limitedContext is the context of a reconcile whose cloud calls wait for a rate limiter; waits counts them.
func limitedContext(t *testing.T) (ctx context.Context, waits *int) {
	t.Helper()
	limiters, err := ratelimit.New(1000, 10)
	require.NoError(t, err)
	waits = new(int)
	limiters.OnWait(func(time.Duration) { *waits++ })
	return step.ContextWithEnv(t.Context(), step.NewEnv(nil, step.EnvOptions{Limiters: limiters})), waits
}

// TestCallWaitsForTheLimiterAndRecordsTheCall: every attempt of a Call waits for the reconcile's rate limiter and
// is counted with the kind, the operation and its outcome; a short throttling hint is retried in place.
func TestCallWaitsForTheLimiterAndRecordsTheCall(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name      string
		results   []error // what fn returns, one per attempt
		wantErr   func(error) bool
		wantCalls map[string]float64 // outcome → calls
	}{
		{name: "ok", results: []error{nil}, wantCalls: map[string]float64{metrics.OutcomeOK: 1}},
		{name: "an error is returned as it is", results: []error{errBoom},
			wantErr:   func(err error) bool { return errors.Is(err, errBoom) && !step.IsThrottled(err) },
			wantCalls: map[string]float64{metrics.OutcomeError: 1}},
		{name: "a short throttling hint is retried in place",
			results:   []error{step.Throttled(errBoom, time.Millisecond), nil},
			wantCalls: map[string]float64{metrics.OutcomeThrottled: 1, metrics.OutcomeOK: 1}},
		{name: "a long throttling hint is returned, still throttled",
			results:   []error{step.Throttled(errBoom, time.Minute)},
			wantErr:   step.IsThrottled,
			wantCalls: map[string]float64{metrics.OutcomeThrottled: 1}},
		{name: "throttled on every retry: the error is returned after three retries",
			results: []error{step.Throttled(errBoom, time.Millisecond), step.Throttled(errBoom, time.Millisecond),
				step.Throttled(errBoom, time.Millisecond), step.Throttled(errBoom, time.Millisecond)},
			wantErr:   step.IsThrottled,
			wantCalls: map[string]float64{metrics.OutcomeThrottled: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, waits := limitedContext(t)
			kind, op := "call-"+t.Name(), "read"
			before := callCounts(kind, op)
			attempts := 0
			err := ensure.Call(ctx, kind, op, func(got context.Context) error {
				assert.Equal(t, ctx, got, "fn runs with the context of the Call")
				attempts++
				return tt.results[attempts-1]
			})
			if tt.wantErr == nil {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.True(t, tt.wantErr(err), "unexpected error class: %v", err)
			}
			assert.Len(t, tt.results, attempts, "attempts")
			assert.Equal(t, attempts, *waits, "every attempt waited for the rate limiter")
			for outcome, n := range callCounts(kind, op) {
				assert.Equal(t, tt.wantCalls[outcome], n-before[outcome], "calls with outcome %s", outcome)
			}
		})
	}
}

// TestCallInsideCreateIsNotRetriedTwice: a composite Create whose second call (a read through Call) stays throttled
// is not called again in place by Exists: its first call may have created the resource.
func TestCallInsideCreateIsNotRetriedTwice(t *testing.T) {
	ctx, waits := limitedContext(t)
	cloud := fakecloud.New()
	creates, reads := 0, 0
	r := ensure.NewResource(ensure.ResourceFuncs[fakecloud.Spec, *fakecloud.Net]{
		ResourceKind:   "composite-net",
		GetFunc:        cloud.Get,
		FindByTagsFunc: cloud.FindByTags,
		DeleteFunc:     cloud.Delete,
		IDFunc:         cloud.ID,
		CreateFunc: func(ctx context.Context, spec fakecloud.Spec, token string, tags map[string]string) (*fakecloud.Net, error) {
			creates++
			n, err := cloud.Create(ctx, spec, token, tags)
			if err != nil {
				return nil, err
			}
			err = ensure.Call(ctx, "composite-net", "get", func(context.Context) error {
				reads++
				return step.Throttled(errors.New("429"), time.Millisecond)
			})
			return n, err
		},
		Guarantees: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true},
	})
	_, err := ensure.Exists(ctx, fakecloud.NewTracker(), "vpc", r, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.Error(t, err)
	assert.True(t, step.IsThrottled(err), "the reconcile is requeued after the hint: %v", err)
	assert.Equal(t, 1, creates, "the Create is not retried in place")
	assert.Equal(t, 4, reads, "the read is retried in place three times")
	assert.Equal(t, 1+1+4, *waits, "FindByTags, Create and every read waited for the rate limiter")
}
