package cloud_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// fakeClock is a clock for WithClock that moves only when told, safe for concurrent use.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Now returns the clock's time.
func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Add moves the clock by d, backwards when d is negative.
func (f *fakeClock) Add(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

var findOp = cloud.VerbFind.On(cloud.KindNetwork)

// find makes one FindNetworks call, the cheapest API call.
func find(ctx context.Context, c *cloud.Cloud) error {
	_, err := c.FindNetworks(ctx, map[string]string{"a": "b"})
	return err
}

// requireThrottled checks that err is a throttled call of op in account, with its RetryAfter.
func requireThrottled(t *testing.T, err error, op cloud.Op, account string, retryAfter time.Duration) {
	t.Helper()
	require.ErrorIs(t, err, cloud.ErrThrottled)
	assert.NotErrorIs(t, err, cloud.ErrInjected)
	var te *cloud.ThrottledError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, cloud.ThrottledError{Op: op, Account: account, RetryAfter: retryAfter}, *te)
	got, ok := cloud.RetryAfter(err)
	assert.True(t, ok)
	assert.Equal(t, retryAfter, got)
	assert.Contains(t, err.Error(), op.String())
	assert.Contains(t, err.Error(), "retry after "+retryAfter.String())
}

func TestRateLimitValidation(t *testing.T) {
	for _, tc := range []struct {
		name      string
		perSecond float64
		burst     int
		wantErr   string // of WithRateLimit; "" when valid
		removes   bool   // SetRateLimit removes the limit instead of failing
	}{
		{name: "valid", perSecond: 2, burst: 3},
		{name: "fractional rate", perSecond: 0.25, burst: 1},
		{name: "zero rate", perSecond: 0, burst: 1, wantErr: `rateLimit.perSecond "0" must be a finite number greater than 0`},
		{name: "negative rate", perSecond: -1, burst: 1, wantErr: `rateLimit.perSecond "-1"`},
		{name: "NaN rate", perSecond: math.NaN(), burst: 1, wantErr: `rateLimit.perSecond "NaN"`},
		{name: "infinite rate", perSecond: math.Inf(1), burst: 1, wantErr: `rateLimit.perSecond "+Inf"`},
		{name: "zero burst", perSecond: 1, burst: 0, wantErr: `rateLimit.burst "0" must be greater than 0`},
		{name: "negative burst", perSecond: 1, burst: -2, wantErr: `rateLimit.burst "-2"`},
		{name: "both zero", perSecond: 0, burst: 0, wantErr: `rateLimit.perSecond "0"`, removes: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cloud.New(cloud.WithRateLimit(tc.perSecond, tc.burst))
			if tc.wantErr == "" {
				require.NoError(t, err)
				perSecond, burst := c.RateLimit()
				assert.Equal(t, tc.perSecond, perSecond)
				assert.Equal(t, tc.burst, burst)
			} else {
				require.ErrorIs(t, err, cloud.ErrInvalidParameter)
				assert.ErrorContains(t, err, "cannot create cloud: invalid parameter: "+tc.wantErr)
			}

			c = memcloudtest.NewCloud(t, cloud.WithRateLimit(7, 8))
			err = c.SetRateLimit(tc.perSecond, tc.burst)
			perSecond, burst := c.RateLimit()
			switch {
			case tc.removes:
				require.NoError(t, err)
				assert.Zero(t, perSecond)
				assert.Zero(t, burst)
			case tc.wantErr == "":
				require.NoError(t, err)
				assert.Equal(t, tc.perSecond, perSecond)
				assert.Equal(t, tc.burst, burst)
			default:
				require.ErrorIs(t, err, cloud.ErrInvalidParameter)
				assert.ErrorContains(t, err, "cannot set rate limit: invalid parameter: "+tc.wantErr)
				assert.Equal(t, 7.0, perSecond, "a failed SetRateLimit changes nothing")
				assert.Equal(t, 8, burst)
			}
		})
	}
}

// TestRateLimitBurst makes calls at a frozen time: a bucket lets its burst through, then
// throttles every call with the time one token takes at perSecond.
func TestRateLimitBurst(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name           string
		opts           []cloud.Option
		burst          int           // calls that go through
		wantRetryAfter time.Duration // of the calls after them
	}{
		{name: "no limit", burst: 1000},
		{name: "2 per second, bursts of 3", opts: []cloud.Option{cloud.WithRateLimit(2, 3)}, burst: 3, wantRetryAfter: 500 * time.Millisecond},
		{name: "10 per second, no burst", opts: []cloud.Option{cloud.WithRateLimit(10, 1)}, burst: 1, wantRetryAfter: 100 * time.Millisecond},
		{name: "one every 2s", opts: []cloud.Option{cloud.WithRateLimit(0.5, 2)}, burst: 2, wantRetryAfter: 2 * time.Second},
		{name: "rounded up to the nanosecond", opts: []cloud.Option{cloud.WithRateLimit(3, 1)}, burst: 1, wantRetryAfter: 333333334 * time.Nanosecond},
		{name: "at least MinRetryAfter", opts: []cloud.Option{cloud.WithRateLimit(5000, 2)}, burst: 2, wantRetryAfter: cloud.MinRetryAfter},
		{name: "at most the longest duration", opts: []cloud.Option{cloud.WithRateLimit(1e-12, 1)}, burst: 1, wantRetryAfter: math.MaxInt64},
		{name: "last option wins", opts: []cloud.Option{cloud.WithRateLimit(1, 1), cloud.WithRateLimit(4, 2)}, burst: 2, wantRetryAfter: 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			c := memcloudtest.NewCloud(t, append(tc.opts, cloud.WithClock(clock.Now))...)
			for i := range tc.burst {
				require.NoError(t, find(ctx, c), "call %d", i)
			}
			s := c.Calls()
			if tc.wantRetryAfter == 0 {
				assert.Zero(t, s.Throttled)
				assert.Equal(t, tc.burst, s.Total())
				return
			}
			err := find(ctx, c)
			requireThrottled(t, err, findOp, "", tc.wantRetryAfter)
			assert.Equal(t, `cannot find networks with tags "a=b": throttled: FindNetwork: rate limit exceeded, retry after `+tc.wantRetryAfter.String(), err.Error())
			requireThrottled(t, find(ctx, c), findOp, "", tc.wantRetryAfter) // a throttled call takes nothing

			s = c.Calls()
			assert.Equal(t, 2, s.Throttled)
			assert.Empty(t, s.ThrottledByAccount, "calls without credentials are counted in Throttled only")
			assert.Equal(t, tc.burst+2, s.Calls[findOp], "throttled calls are calls")
			assert.Equal(t, tc.burst+2, s.Reads)
			assert.Empty(t, s.ByAccount)
			assert.Zero(t, s.Faults)
		})
	}
}

// TestNoRateLimitNeverReadsTheClock shows that the rate limit costs nothing when there is none:
// reads never look at the clock, at any pace.
func TestNoRateLimitNeverReadsTheClock(t *testing.T) {
	ctx := t.Context()
	var reads int
	c := memcloudtest.NewCloud(t, cloud.WithClock(func() time.Time { reads++; return time.Time{} }))
	for range 100 {
		require.NoError(t, find(ctx, c))
	}
	require.NoError(t, c.SetRateLimit(1, 1))
	require.NoError(t, c.SetRateLimit(0, 0))
	for range 100 {
		require.NoError(t, find(ctx, c))
	}
	assert.Zero(t, reads)
	assert.Zero(t, c.Calls().Throttled)
}

// TestRateLimitDefaultClock checks that buckets work on time.Now.
func TestRateLimitDefaultClock(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t, cloud.WithRateLimit(1, 1))
	require.NoError(t, find(ctx, c))
	wait, ok := cloud.RetryAfter(find(ctx, c))
	require.True(t, ok)
	assert.Positive(t, wait)
	assert.LessOrEqual(t, wait, time.Second)
}

func TestRateLimitPerAccount(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	c := memcloudtest.NewCloud(t, cloud.WithClock(clock.Now), cloud.WithRateLimit(1, 2))
	ctxs := map[string]context.Context{}
	creds := map[string]cloud.Credentials{}
	for _, name := range []string{"team-a", "team-b", "team-c"} {
		cr, err := c.CreateAccount(name)
		require.NoError(t, err)
		creds[name], ctxs[name] = cr, cloud.WithCredentials(ctx, cr)
	}

	for i, step := range []struct {
		account   string
		throttled bool
	}{
		{account: "team-a"},
		{account: "team-a"},
		{account: "team-a", throttled: true},
		{account: "team-b"}, // team-a's calls took nothing from team-b
		{account: "team-a", throttled: true},
		{account: "team-b"},
		{account: "team-b", throttled: true},
		{account: "team-c"},
	} {
		err := find(ctxs[step.account], c)
		if !step.throttled {
			require.NoError(t, err, "step %d", i)
			continue
		}
		requireThrottled(t, err, findOp, step.account, time.Second)
		assert.Contains(t, err.Error(), `for account "`+step.account+`"`)
		assert.NotContains(t, err.Error(), creds[step.account].AccessKeyID, "no credential in the message")
		assert.NotContains(t, err.Error(), creds[step.account].SecretAccessKey)
	}

	// Credentials are checked first: a refused call neither takes a token nor is throttled.
	fresh, err := c.RotateCredentials("team-c")
	require.NoError(t, err)
	for range 3 {
		require.ErrorIs(t, find(ctxs["team-c"], c), cloud.ErrUnauthorized)
		require.ErrorIs(t, find(ctx, c), cloud.ErrUnauthorized)
	}
	ctxC := cloud.WithCredentials(ctx, fresh)
	require.NoError(t, find(ctxC, c), "team-c still has its second token")
	requireThrottled(t, find(ctxC, c), findOp, "team-c", time.Second)

	s := c.Calls()
	assert.Equal(t, 4, s.Throttled)
	assert.Equal(t, map[string]int{"team-a": 2, "team-b": 1, "team-c": 1}, s.ThrottledByAccount)
	assert.Equal(t, map[string]int{"team-a": 4, "team-b": 3, "team-c": 3}, s.ByAccount, "throttled calls are charged to their account")
	assert.Equal(t, 6, s.Unauthorized)
	assert.Equal(t, 16, s.Total())

	// An account deleted and created again starts with a full bucket.
	require.NoError(t, c.DeleteAccount("team-a"))
	cr, err := c.CreateAccount("team-a")
	require.NoError(t, err)
	ctxA := cloud.WithCredentials(ctx, cr)
	require.NoError(t, find(ctxA, c))
	require.NoError(t, find(ctxA, c))
	requireThrottled(t, find(ctxA, c), findOp, "team-a", time.Second)
}

// TestRateLimitRefill moves a fake clock between calls: buckets refill at perSecond, never
// beyond the burst, and a clock going backwards earns nothing.
func TestRateLimitRefill(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	c := memcloudtest.NewCloud(t, cloud.WithClock(clock.Now), cloud.WithRateLimit(4, 2)) // a token every 250ms
	for i, step := range []struct {
		advance        time.Duration
		wantRetryAfter time.Duration // 0: the call goes through
	}{
		{},
		{},
		{wantRetryAfter: 250 * time.Millisecond},
		{advance: 125 * time.Millisecond, wantRetryAfter: 125 * time.Millisecond},     // half a token
		{advance: 62500 * time.Microsecond, wantRetryAfter: 62500 * time.Microsecond}, // three quarters
		{advance: 62500 * time.Microsecond},                                           // a whole token
		{wantRetryAfter: 250 * time.Millisecond},
		{advance: -time.Hour, wantRetryAfter: 250 * time.Millisecond}, // backwards: nothing earned
		{advance: time.Hour + 250*time.Millisecond},                   // back to where it was, and a token
		{advance: 10 * time.Second},                                   // 40 tokens earned, 2 kept
		{},
		{wantRetryAfter: 250 * time.Millisecond},
	} {
		clock.Add(step.advance)
		err := find(ctx, c)
		if step.wantRetryAfter == 0 {
			require.NoError(t, err, "step %d", i)
		} else {
			requireThrottled(t, err, findOp, "", step.wantRetryAfter)
		}
	}
	assert.Equal(t, 6, c.Calls().Throttled)
}

// TestRateLimitRetryAfterIsEnough checks, at rates whose tokens take durations that floats
// round, that a call made RetryAfter after a throttled one always goes through.
func TestRateLimitRetryAfterIsEnough(t *testing.T) {
	ctx := t.Context()
	for _, perSecond := range []float64{3, 7, 0.3, 1.0 / 3, 123.456, 999.9, 1e-3} {
		clock := newFakeClock()
		c := memcloudtest.NewCloud(t, cloud.WithClock(clock.Now), cloud.WithRateLimit(perSecond, 1))
		for i := range 200 {
			err := find(ctx, c)
			wait, throttled := cloud.RetryAfter(err)
			if !throttled {
				require.NoError(t, err)
				clock.Add(time.Duration(i%7) * time.Millisecond) // earn a fraction of a token
				continue
			}
			clock.Add(wait)
			require.NoError(t, find(ctx, c), "%v per second, call %d after %v", perSecond, i, wait)
		}
	}
}

func TestSetRateLimit(t *testing.T) {
	ctx := t.Context()
	clock := newFakeClock()
	c := memcloudtest.NewCloud(t, cloud.WithClock(clock.Now))
	type limit struct {
		perSecond float64
		burst     int
	}
	type step struct {
		advance        time.Duration
		set            *limit        // SetRateLimit(perSecond, burst) after advance, before the call
		wantRetryAfter time.Duration // 0: the call goes through
	}
	set := func(perSecond float64, burst int) *limit { return &limit{perSecond, burst} }
	for i, s := range []step{
		{}, {}, {}, // no limit
		{set: set(1, 1)}, // on after start: a full bucket
		{wantRetryAfter: time.Second},
		{set: set(2, 3), wantRetryAfter: 500 * time.Millisecond}, // the bucket keeps its 0 tokens
		{advance: 1500 * time.Millisecond},                       // 3 tokens at the new rate
		{},
		{},
		{wantRetryAfter: 500 * time.Millisecond},
		{advance: 250 * time.Millisecond, set: set(4, 2), wantRetryAfter: 125 * time.Millisecond}, // 0.5 earned at the old rate
		{advance: 10 * time.Second, set: set(1, 1)},                                               // 2 tokens capped at the new burst of 1
		{wantRetryAfter: time.Second},
		{set: set(0, 0)}, {}, {}, {}, // off
		{set: set(1, 2)}, {}, // on again: full buckets
		{wantRetryAfter: time.Second},
	} {
		clock.Add(s.advance)
		if s.set != nil {
			require.NoError(t, c.SetRateLimit(s.set.perSecond, s.set.burst))
			perSecond, burst := c.RateLimit()
			assert.Equal(t, *s.set, limit{perSecond, burst})
		}
		err := find(ctx, c)
		if s.wantRetryAfter == 0 {
			require.NoError(t, err, "step %d", i)
		} else {
			requireThrottled(t, err, findOp, "", s.wantRetryAfter)
		}
	}
	assert.Equal(t, 6, c.Calls().Throttled)
}

// TestRateLimitFirst checks where throttling stands among the checks of a call: after the
// credentials and the context, before faults and latency.
func TestRateLimitFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		// prepare runs with the bucket empty, before the throttled call.
		prepare func(t *testing.T, c *cloud.Cloud)
		// after checks the call made once the bucket has a token again.
		after func(t *testing.T, err error)
	}{
		{
			name: "no probabilistic fault",
			prepare: func(t *testing.T, c *cloud.Cloud) {
				require.NoError(t, c.SetFaults(cloud.FaultConfig{BeforeChange: 1, Reads: true}))
			},
			after: func(t *testing.T, err error) { require.ErrorIs(t, err, cloud.ErrInjected) },
		},
		{
			name: "queued faults stay queued",
			prepare: func(t *testing.T, c *cloud.Cloud) {
				require.NoError(t, c.FailNext(findOp, cloud.BeforeChange))
			},
			after: func(t *testing.T, err error) { require.ErrorIs(t, err, cloud.ErrInjected) },
		},
		{
			name: "no latency",
			prepare: func(t *testing.T, c *cloud.Cloud) {
				require.NoError(t, c.SetFaults(cloud.FaultConfig{Latency: time.Hour}))
			},
			after: func(t *testing.T, err error) { require.ErrorIs(t, err, context.DeadlineExceeded) },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			clock := newFakeClock()
			c := memcloudtest.NewCloud(t, cloud.WithClock(clock.Now), cloud.WithRateLimit(1, 1))
			require.NoError(t, find(ctx, c))
			tc.prepare(t, c)
			start := time.Now()
			requireThrottled(t, find(ctx, c), findOp, "", time.Second)
			assert.Less(t, time.Since(start), time.Minute, "a throttled call returns at once")

			canceled, cancel := context.WithCancel(ctx)
			cancel()
			require.ErrorIs(t, find(canceled, c), context.Canceled, "a canceled call is not sent")

			clock.Add(time.Second)
			short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
			defer cancel()
			tc.after(t, find(short, c))
			s := c.Calls()
			assert.Equal(t, 1, s.Throttled)
			assert.Equal(t, 4, s.Total())
		})
	}
}

// TestThrottledCreate checks, for every kind, that a throttled create creates nothing and
// uses up nothing, and that a retry with the same idempotency token after the wait creates
// exactly one resource, even when its response is lost.
func TestThrottledCreate(t *testing.T) {
	ctx := context.Background()
	for _, m := range makers {
		for _, lost := range []bool{false, true} {
			name := m.kind.String()
			if lost {
				name += "/lost response"
			}
			t.Run(name, func(t *testing.T) {
				clock := newFakeClock()
				e := newEnv(t, cloud.WithClock(clock.Now))
				require.NoError(t, e.c.SetRateLimit(10, 1))
				before := e.c.TotalCreated()
				tags := map[string]string{"owner": "c"}
				r := req{name: "x", token: "tok", tags: tags}
				if lost {
					require.NoError(t, e.c.FailNext(cloud.VerbCreate.On(m.kind), cloud.AfterChange))
				}
				_, err := m.find(ctx, e, tags) // empties the bucket
				require.NoError(t, err)

				_, err = m.create(ctx, e, r)
				requireThrottled(t, err, cloud.VerbCreate.On(m.kind), "", 100*time.Millisecond)
				assert.Equal(t, before, e.c.TotalCreated(), "a throttled create creates nothing")
				assert.Zero(t, e.c.Calls().Created[m.kind])

				retry := func() (string, error) {
					wait, ok := cloud.RetryAfter(err)
					require.True(t, ok)
					clock.Add(wait)
					return m.create(ctx, e, r)
				}
				id, err := retry()
				if lost {
					require.ErrorIs(t, err, cloud.ErrInjected)
					clock.Add(100 * time.Millisecond)
					id, err = m.create(ctx, e, r)
				}
				require.NoError(t, err)
				_, err = m.create(ctx, e, r) // too soon again
				requireThrottled(t, err, cloud.VerbCreate.On(m.kind), "", 100*time.Millisecond)
				again, err := retry()
				require.NoError(t, err)

				assert.Equal(t, id, again, "the token returns the resource created after the wait")
				assert.Equal(t, 1, e.c.Calls().Created[m.kind])
				assert.Equal(t, before+1, e.c.TotalCreated())
				assert.Empty(t, e.c.Duplicates(cloud.OwnerTagValue("owner"), ""))
			})
		}
	}
}

// TestConcurrentRateLimit races the calls of several accounts against their buckets: at a
// frozen time exactly burst calls of each account go through whatever the interleaving, and
// reconcilers that wait RetryAfter (on a shared fake clock) and retry with their tokens under
// faults create every resource once and clean up.
func TestConcurrentRateLimit(t *testing.T) {
	ctx := context.Background()
	tenants := []string{"team-a", "team-b", "team-c"}

	t.Run("frozen clock", func(t *testing.T) {
		const (
			burst   = 5
			workers = 8
			calls   = 10
		)
		c := memcloudtest.NewCloud(t, cloud.WithClock(newFakeClock().Now), cloud.WithRateLimit(1, burst))
		var wg sync.WaitGroup
		var mu sync.Mutex
		passed := map[string]int{}
		for _, name := range tenants {
			creds, err := c.CreateAccount(name)
			require.NoError(t, err)
			ctx := cloud.WithCredentials(ctx, creds)
			for range workers {
				wg.Go(func() {
					for range calls {
						err := find(ctx, c)
						if !assert.True(t, err == nil || errors.Is(err, cloud.ErrThrottled), err) {
							return
						}
						if err == nil {
							mu.Lock()
							passed[name]++
							mu.Unlock()
						}
					}
				})
			}
		}
		wg.Wait()
		s := c.Calls()
		want := map[string]int{}
		wantThrottled := map[string]int{}
		for _, name := range tenants {
			want[name], wantThrottled[name] = burst, workers*calls-burst
		}
		assert.Equal(t, want, passed)
		assert.Equal(t, wantThrottled, s.ThrottledByAccount)
		assert.Equal(t, len(tenants)*(workers*calls-burst), s.Throttled)
		assert.Equal(t, len(tenants)*workers*calls, s.Total())
	})

	t.Run("retrying reconcilers", func(t *testing.T) {
		const clusters = 4
		clock := newFakeClock()
		c := memcloudtest.NewCloud(t, cloud.WithSeed(11), cloud.WithClock(clock.Now), cloud.WithRateLimit(20, 3), cloud.WithFaults(cloud.FaultConfig{
			BeforeChange: 0.2, AfterChange: 0.2, Reads: true,
		}))
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []error
		for _, name := range tenants {
			creds, err := c.CreateAccount(name)
			require.NoError(t, err)
			ctx := cloud.WithCredentials(ctx, creds)
			for i := range clusters {
				wg.Go(func() {
					if err := runThrottledCluster(ctx, c, clock, i); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...))

		assert.Empty(t, c.All(), "every resource was cleaned up")
		s := c.Calls()
		assert.Positive(t, s.Throttled)
		assert.Positive(t, s.Faults)
		assert.Equal(t, len(tenants)*clusters, s.Created[cloud.KindNetwork], "tokens prevented every duplicate network")
		assert.Equal(t, len(tenants)*clusters, s.Created[cloud.KindSubnet])
		assert.Equal(t, len(tenants)*clusters*2, s.Created[cloud.KindInstance])
		for _, k := range cloud.Kinds() {
			assert.Equal(t, s.Created[k], s.Deleted[k], k)
		}
		calls, throttled := 0, 0
		for _, name := range tenants {
			calls += s.ByAccount[name]
			throttled += s.ThrottledByAccount[name]
		}
		assert.Equal(t, s.Total(), calls, "every call is charged to its account")
		assert.Equal(t, s.Throttled, throttled)
	})
}

// maxThrottled bounds the throttled calls of one retryThrottled loop. Every throttled call advances the
// clock by its RetryAfter, which refills the bucket, so a reconciler is throttled again only when one of the
// few others of its account took the token first: a thousand times in a row is a bug (a RetryAfter that
// refills nothing), not bad luck.
const maxThrottled = 1000

// retryThrottled calls f until it succeeds or fails with something else than throttling or an injected
// fault; a throttled call waits RetryAfter on clock first. It gives up after maxAttempts injected faults or
// maxThrottled throttled calls.
func retryThrottled(clock *fakeClock, f func() error) error {
	faults, throttled := 0, 0
	for {
		err := f()
		if wait, ok := cloud.RetryAfter(err); ok {
			if throttled++; throttled == maxThrottled {
				return fmt.Errorf("still throttled after %d attempts: %w", throttled, err)
			}
			clock.Add(wait)
			continue
		}
		if !errors.Is(err, cloud.ErrInjected) {
			return err
		}
		if faults++; faults == maxAttempts {
			return fmt.Errorf("still failing after %d attempts: %w", faults, err)
		}
	}
}

// runThrottledCluster creates a network, a subnet and two instances and deletes them, like a
// reconciler that waits when throttled and retries with the same idempotency tokens.
func runThrottledCluster(ctx context.Context, c *cloud.Cloud, clock *fakeClock, i int) error {
	token := func(s string) string { return fmt.Sprintf("cluster-%d-%s", i, s) }
	var net *cloud.Network
	if err := retryThrottled(clock, func() (err error) {
		net, err = c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "vpc", CIDR: "10.0.0.0/16", IdempotencyToken: token("vpc")})
		return err
	}); err != nil {
		return err
	}
	var subnet *cloud.Subnet
	if err := retryThrottled(clock, func() (err error) {
		subnet, err = c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "sn", NetworkID: net.ID, CIDR: "10.0.1.0/24", IdempotencyToken: token("sn")})
		return err
	}); err != nil {
		return err
	}
	var insts []string
	for _, m := range []string{"m0", "m1"} {
		var inst *cloud.Instance
		if err := retryThrottled(clock, func() (err error) {
			inst, err = c.CreateInstance(ctx, cloud.InstanceSpec{Name: m, SubnetID: subnet.ID, Image: "img", Flavor: "small", IdempotencyToken: token(m)})
			return err
		}); err != nil {
			return err
		}
		insts = append(insts, inst.ID)
	}
	for _, id := range insts {
		if err := ignoreNotFound(retryThrottled(clock, func() error { return c.DeleteInstance(ctx, id) })); err != nil {
			return err
		}
	}
	if err := ignoreNotFound(retryThrottled(clock, func() error { return c.DeleteSubnet(ctx, subnet.ID) })); err != nil {
		return err
	}
	return ignoreNotFound(retryThrottled(clock, func() error { return c.DeleteNetwork(ctx, net.ID) }))
}
