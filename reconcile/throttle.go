package reconcile

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/capkit/capkit/metrics"
)

// ReasonThrottled is the reason of a step condition while the cloud throttles the provider's calls.
const ReasonThrottled = "Throttled"

// Bounds of the wait after a throttled reconcile: ThrottleBackoffBase doubled with each throttled reconcile
// of the same object in a row, at least the cloud's hint, at most ThrottleBackoffMax; it starts again after a
// reconcile that is not throttled. Up to 50% jitter is added, so that a fleet throttled together does not
// come back together.
const (
	ThrottleBackoffBase = 500 * time.Millisecond
	ThrottleBackoffMax  = time.Minute
)

// ThrottledError is a cloud call the cloud refused for its rate limit (HTTP 429, a cloud's own throttling
// code). It is not a failure: the reconcile is requeued after RetryAfter, or a bounded backoff without it.
type ThrottledError struct {
	// RetryAfter is the cloud's hint (Retry-After); zero when it gave none.
	RetryAfter time.Duration
	// Err is the cloud's error.
	Err error
}

func (e *ThrottledError) Error() string { return fmt.Sprintf("throttled by the cloud: %v", e.Err) }

// Unwrap returns the cloud's error.
func (e *ThrottledError) Unwrap() error { return e.Err }

// Throttled marks err, a cloud call refused for its rate limit, as throttling; retryAfter is the cloud's hint
// (zero without one). A provider's Resource returns it from its calls, as it returns Terminal for a terminal
// error.
func Throttled(err error, retryAfter time.Duration) error {
	if err == nil {
		return nil
	}
	return &ThrottledError{RetryAfter: max(retryAfter, 0), Err: err}
}

// IsThrottled reports whether err is throttling, and the cloud's hint.
func IsThrottled(err error) (time.Duration, bool) {
	var t *ThrottledError
	if errors.As(err, &t) {
		return t.RetryAfter, true
	}
	return 0, false
}

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

// progressKey holds, in a reconcile's context, how many changes Ensure and EnsureDeleted made in the cloud.
type progressKey struct{}

// withProgress returns ctx counting the changes made in the cloud during one reconcile.
func withProgress(ctx context.Context) context.Context {
	return context.WithValue(ctx, progressKey{}, new(atomic.Int64))
}

// madeProgress records a change in the cloud (a create, adoption, update or delete).
func madeProgress(ctx context.Context) {
	if n, ok := ctx.Value(progressKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

func progressOf(ctx context.Context) int64 {
	if n, ok := ctx.Value(progressKey{}).(*atomic.Int64); ok {
		return n.Load()
	}
	return 0
}

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
	r.mark(ctx, obj, cond, conditionStatusFor(cond), ReasonThrottled, "the cloud throttled the provider's calls; retrying with backoff")
	metrics.ReconcileThrottled.WithLabelValues(r.kind.Kind).Inc()
	logFrom(ctx).V(1).Info("throttled by the cloud", "condition", cond, "retryAfter", after, "error", message(ctx, err))
	return outcome{requeueAfter: after, throttled: true}
}

func objectKey(obj conditionsObject) string {
	o := obj.Object()
	return o.GetNamespace() + "/" + o.GetName()
}
