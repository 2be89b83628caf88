package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiters are token buckets, one per key, all with the same rate and burst.
type Limiters struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	// onWait, when set, is called after every Wait with the time it waited (OnWait).
	onWait func(time.Duration)
}

// New returns Limiters that let through perSecond calls per second per key, with bursts of burst.
func New(perSecond float64, burst int) (*Limiters, error) {
	if perSecond <= 0 {
		return nil, fmt.Errorf("cannot create rate limiters: perSecond %v must be positive", perSecond)
	}
	if burst <= 0 {
		return nil, fmt.Errorf("cannot create rate limiters: burst %d must be positive", burst)
	}
	return &Limiters{limit: rate.Limit(perSecond), burst: burst, buckets: map[string]*rate.Limiter{}}, nil
}

// OnWait sets a function called after every Wait with how long it waited, e.g. to observe a histogram.
func (l *Limiters) OnWait(fn func(time.Duration)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onWait = fn
}

func (l *Limiters) bucket(key string) (*rate.Limiter, func(time.Duration)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[key] = b
	}
	return b, l.onWait
}

// Wait blocks until key's bucket has a token or ctx ends, and returns how long it waited.
func (l *Limiters) Wait(ctx context.Context, key string) (time.Duration, error) {
	b, hook := l.bucket(key)
	start := time.Now()
	err := b.Wait(ctx)
	waited := time.Since(start)
	if hook != nil {
		hook(waited)
	}
	if err != nil {
		return waited, fmt.Errorf("cannot wait for the rate limit of %q: %w", key, err)
	}
	return waited, nil
}
