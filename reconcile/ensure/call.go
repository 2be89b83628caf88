package ensure

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/capkit/capkit/metrics"
	"github.com/capkit/capkit/reconcile/step"
)

// Call runs fn, one cloud call that a Resource makes beyond the one Exists or Deleted called it for (the read
// after a create, a poll inside a composite Create, the lookup of a dependency), as Exists and Deleted run their
// own: it waits for the reconcile's rate limiter (step.Env.Wait), records the call in capkit's metrics
// (capkit_cloud_calls_total and capkit_cloud_call_duration_seconds with resource kind and operation op), and
// retries a call the cloud throttled with a short hint (step.Throttled) in place, a few times. fn gets ctx.
//
// kind is the resource label (the Resource's Kind, see Kinded), op the operation label: get, find, create,
// update, delete or poll, as ensure's own calls use them, or another short constant; never an ID or a name,
// which would make a series per resource. A throttled error Call returns is not retried in place again by the
// Exists or Deleted call that encloses it: the calls before it may have changed the cloud (a composite Create
// that created, then was throttled reading), so the reconcile is requeued after the hint instead.
func Call(ctx context.Context, kind, op string, fn func(ctx context.Context) error) error {
	err := call(ctx, kind, op, func() (bool, error) { return false, fn(ctx) })
	if step.IsThrottled(err) {
		return &retriedError{err}
	}
	return err
}

// Inline retries of a throttled call: a call the cloud throttled with a hint of at most maxInlineThrottleWait
// is retried in place after the hint, up to maxInlineThrottleRetries times, before the reconcile gives up and
// is requeued. A throttled call did nothing in the cloud, so retrying it is always safe; and a reconcile that
// needs more calls than the cloud's burst could otherwise never finish.
const (
	maxInlineThrottleWait    = time.Second
	maxInlineThrottleRetries = 3
)

// call waits for the rate limiter, runs fn and records it under kind and op; notFound tells a successful call
// that found nothing. A call throttled with a short hint is retried in place (maxInlineThrottleRetries),
// unless the throttling came out of a Call inside fn.
func call(ctx context.Context, kind, op string, fn func() (notFound bool, err error)) error {
	for attempt := 0; ; attempt++ {
		env := step.EnvFrom(ctx)
		waited, err := env.Wait(ctx)
		if waited > 0 || env.RateLimited() {
			metrics.ObserveWait(waited)
		}
		if err != nil {
			return err
		}
		start := time.Now()
		notFound, err := fn()
		outcome := metrics.OutcomeOK
		var throttledErr *step.ThrottledError
		throttled := errors.As(err, &throttledErr)
		switch {
		case throttled:
			outcome = metrics.OutcomeThrottled
		case err != nil:
			outcome = metrics.OutcomeError
		case notFound:
			outcome = metrics.OutcomeNotFound
		}
		metrics.ObserveCall(kind, op, outcome, time.Since(start))
		var retried *retriedError
		if !throttled || errors.As(err, &retried) || throttledErr.RetryAfter <= 0 ||
			throttledErr.RetryAfter > maxInlineThrottleWait || attempt >= maxInlineThrottleRetries {
			return err
		}
		hint := throttledErr.RetryAfter
		select {
		case <-ctx.Done():
			return err
		case <-time.After(hint + rand.N(hint/2+1)):
		}
	}
}

// retriedError is a throttled error that left a Call: Call retried it in place already, and the call that
// encloses it does not (see Call). It is the error it wraps in every other respect.
type retriedError struct{ err error }

func (e *retriedError) Error() string { return e.err.Error() }

func (e *retriedError) Unwrap() error { return e.err }

// refused reports whether a Create's error says the cloud made nothing: a terminal error, or a throttled one that
// did not come out of a Call inside the Create (a Create that created and was then throttled reading may have made
// the resource).
func refused(err error) bool {
	var retried *retriedError
	return step.IsTerminal(err) || (step.IsThrottled(err) && !errors.As(err, &retried))
}
