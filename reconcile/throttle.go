package reconcile

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/metrics"
	"github.com/capkit/capkit/reconcile/step"
)

// Bounds of the wait after a throttled reconcile: ThrottleBackoffBase doubled with each throttled reconcile
// of the same object in a row, at least the cloud's hint, at most ThrottleBackoffMax; it starts again after a
// reconcile that is not throttled. Up to 50% jitter is added, so that a fleet throttled together does not
// come back together.
const (
	ThrottleBackoffBase = 500 * time.Millisecond
	ThrottleBackoffMax  = time.Minute
)

// throttles remembers how many reconciles of each object in a row were throttled.
type throttles struct {
	mu sync.Mutex
	n  map[string]int
}

// next returns the wait after a throttled reconcile of key: the backoff or the hint, whichever is longer,
// bounded, plus up to 50% jitter.
func (t *throttles) next(key string, hint time.Duration) time.Duration {
	t.mu.Lock()
	if t.n == nil {
		t.n = map[string]int{}
	}
	n := t.n[key]
	t.n[key] = n + 1
	t.mu.Unlock()
	d := min(max(hint, ThrottleBackoffBase<<min(n, 20)), ThrottleBackoffMax)
	return d + rand.N(d/2+1)
}

// reset forgets the throttling of key after a reconcile that was not throttled.
func (t *throttles) reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.n, key)
}

// progressOf returns how many changes the reconcile of ctx made in the cloud so far.
func progressOf(ctx context.Context) int64 { return step.EnvFrom(ctx).Changes() }

// stepThrottled records a throttled step in cond and returns when to come back. The backoff grows only
// while throttled reconciles change nothing in the cloud: one that made progress before it was throttled
// starts the backoff again, so that an object that needs more calls than a burst still moves at the
// cloud's pace.
func (r *base) stepThrottled(ctx context.Context, obj conditionsObject, cond string, hint time.Duration, err error) outcome {
	if progressOf(ctx) > 0 {
		r.throttle.reset(objectKey(obj))
	}
	after := r.throttle.next(objectKey(obj), hint)
	// The message stays the same from one throttled reconcile to the next (no wait, no cloud text, which
	// often holds its own hint): a changed condition is a status patch, whose watch event would reconcile
	// the object again at once, a hot loop under throttling.
	r.mark(ctx, obj, cond, conditionStatusFor(cond), conditions.ReasonThrottled, "the cloud throttled the provider's calls; retrying with backoff")
	metrics.ReconcileThrottled.WithLabelValues(r.kind.Kind).Inc()
	logFrom(ctx).V(1).Info("throttled by the cloud", "condition", cond, "retryAfter", after, "error", message(ctx, err))
	return outcome{requeueAfter: after, throttled: true}
}

func objectKey(obj conditionsObject) string {
	o := obj.Object()
	return o.GetNamespace() + "/" + o.GetName()
}
