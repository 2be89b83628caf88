package cloud

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// MinRetryAfter is the shortest RetryAfter of a ThrottledError, so that a caller that waits
// for it never spins.
const MinRetryAfter = time.Millisecond

// tokenSlack absorbs the rounding of float arithmetic: a bucket holding 1 - tokenSlack tokens
// has one, so that a caller that waited exactly RetryAfter is never throttled again by a
// rounding error.
const tokenSlack = 1e-9

// rateLimit is a token bucket's refill rate and capacity.
type rateLimit struct {
	perSecond float64
	burst     int
}

// validate returns an ErrInvalidParameter error naming the first bad field, or nil.
func (l rateLimit) validate() error {
	if !(l.perSecond > 0) || math.IsInf(l.perSecond, 1) {
		return invalid("rateLimit.perSecond", l.perSecond, "must be a finite number greater than 0")
	}
	if l.burst <= 0 {
		return invalid("rateLimit.burst", l.burst, "must be greater than 0")
	}
	return nil
}

// wait returns how long l takes to refill the given number of tokens, rounded up to the
// nanosecond, at least MinRetryAfter and at most the longest time.Duration.
func (l rateLimit) wait(tokens float64) time.Duration {
	ns := math.Ceil(tokens / l.perSecond * float64(time.Second))
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(time.Duration(ns), MinRetryAfter)
}

// bucket is the token bucket of one account. It is guarded by Cloud.mu.
type bucket struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date
}

// refill adds the tokens earned since b.at at l's rate, up to l's burst. A clock that goes
// backwards earns nothing.
func (b *bucket) refill(now time.Time, l rateLimit) {
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(float64(l.burst), b.tokens+elapsed.Seconds()*l.perSecond)
		b.at = now
	}
}

// WithRateLimit limits the API calls of each account to perSecond calls per second on
// average, with bursts of up to burst calls: a token bucket per account (calls without
// credentials share one), full at first, refilled at perSecond tokens per second on the clock
// set with WithClock. Every API call takes a token; a call that finds none fails at once with
// a *ThrottledError matching ErrThrottled, which says how long to wait. Both values must be
// greater than 0. Default: no rate limit. See Cloud.SetRateLimit to change it at run time.
func WithRateLimit(perSecond float64, burst int) Option {
	return func(c *Cloud) { c.limit = &rateLimit{perSecond: perSecond, burst: burst} }
}

// SetRateLimit sets the rate limit of API calls, as WithRateLimit does, or removes it with
// SetRateLimit(0, 0); it affects calls that start afterwards. Other values must be greater
// than 0, or it fails with ErrInvalidParameter and changes nothing.
//
// Turning the limit on starts every account with a full bucket. Changing it keeps the tokens
// of each bucket, earned at the old rate until now and capped at the new burst. Removing it
// forgets every bucket.
func (c *Cloud) SetRateLimit(perSecond float64, burst int) error {
	var limit *rateLimit
	if perSecond != 0 || burst != 0 {
		limit = &rateLimit{perSecond: perSecond, burst: burst}
		if err := limit.validate(); err != nil {
			return fmt.Errorf("cannot set rate limit: %w", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if limit != nil && c.limit != nil {
		now := c.now()
		for _, b := range c.buckets {
			b.refill(now, *c.limit)
			b.tokens = min(b.tokens, float64(limit.burst))
		}
	} else {
		clear(c.buckets)
	}
	c.limit = limit
	return nil
}

// RateLimit returns the current rate limit, (0, 0) when there is none.
func (c *Cloud) RateLimit() (perSecond float64, burst int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limit == nil {
		return 0, 0
	}
	return c.limit.perSecond, c.limit.burst
}

// throttleLocked takes a token from the bucket of account. When there is none it takes
// nothing and returns how long until there is one, and true.
func (c *Cloud) throttleLocked(account string) (time.Duration, bool) {
	if c.limit == nil {
		return 0, false
	}
	now := c.now()
	b, ok := c.buckets[account]
	if !ok {
		b = &bucket{tokens: float64(c.limit.burst), at: now}
		c.buckets[account] = b
	}
	b.refill(now, *c.limit)
	if b.tokens < 1-tokenSlack {
		return c.limit.wait(1 - b.tokens), true
	}
	b.tokens--
	return 0, false
}

// ThrottledError is the error of a call refused by the rate limit (WithRateLimit). It matches
// ErrThrottled with errors.Is. It names the operation and the account, never credentials.
type ThrottledError struct {
	// Op is the operation that was refused.
	Op Op
	// Account is the name of the account whose bucket was empty, "" for a call without
	// credentials.
	Account string
	// RetryAfter is the time until the account's bucket has a token again, at least
	// MinRetryAfter. A call made that long after, and before any other call of the account,
	// is not throttled.
	RetryAfter time.Duration
}

// Error describes the refusal, for example
// `throttled: CreateNetwork for account "team-a": rate limit exceeded, retry after 500ms`.
func (e *ThrottledError) Error() string {
	if e.Account == "" {
		return fmt.Sprintf("throttled: %s: rate limit exceeded, retry after %s", e.Op, e.RetryAfter)
	}
	return fmt.Sprintf("throttled: %s for account %q: rate limit exceeded, retry after %s", e.Op, e.Account, e.RetryAfter)
}

// Is reports whether target is ErrThrottled.
func (e *ThrottledError) Is(target error) bool { return target == ErrThrottled }

// RetryAfter returns how long to wait before retrying the call that returned err, and true,
// when err is (or wraps) a *ThrottledError; it returns 0 and false for any other error and
// for nil.
func RetryAfter(err error) (time.Duration, bool) {
	var t *ThrottledError
	if errors.As(err, &t) {
		return t.RetryAfter, true
	}
	return 0, false
}
