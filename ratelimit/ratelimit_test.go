package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/ratelimit"
)

func TestNewRefusesBadInput(t *testing.T) {
	_, err := ratelimit.New(0, 1)
	assert.ErrorContains(t, err, "perSecond 0 must be positive")
	_, err = ratelimit.New(1, 0)
	assert.ErrorContains(t, err, "burst 0 must be positive")
}

// TestBucketsPerKey: a burst goes through at once, the next call waits about 1/rate, and another key has
// its own bucket.
func TestBucketsPerKey(t *testing.T) {
	l, err := ratelimit.New(20, 2)
	require.NoError(t, err)
	var waits []time.Duration
	l.OnWait(func(d time.Duration) { waits = append(waits, d) })
	ctx := t.Context()
	for range 2 {
		w, err := l.Wait(ctx, "a")
		require.NoError(t, err)
		assert.Less(t, w, 10*time.Millisecond, "within the burst")
	}
	w, err := l.Wait(ctx, "a")
	require.NoError(t, err)
	assert.Greater(t, w, 20*time.Millisecond, "the third call waits for a token (50ms at 20/s)")
	w, err = l.Wait(ctx, "b")
	require.NoError(t, err)
	assert.Less(t, w, 10*time.Millisecond, "another key has its own bucket")
	assert.Len(t, waits, 4)

	// A bucket that refills once every 100 s: however slow the machine, its next token is beyond the context.
	slow, err := ratelimit.New(0.01, 1)
	require.NoError(t, err)
	_, err = slow.Wait(ctx, "a")
	require.NoError(t, err, "the burst")
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err = slow.Wait(short, "a")
	assert.ErrorContains(t, err, `cannot wait for the rate limit of "a"`, "a wait longer than the context fails")
}
