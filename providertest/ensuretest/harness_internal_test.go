package ensuretest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope/scopetest"
)

// slowDeletes is an items cloud whose deletes take effect at the deletes-th Delete of an item.
type slowDeletes struct {
	*items
	deletes, calls int
}

func (s *slowDeletes) Delete(ctx context.Context, id string) error {
	if s.calls++; s.calls < s.deletes {
		return nil
	}
	return s.items.Delete(ctx, id)
}

func TestDeletedUntilDoneWaitsOnTheFixturesClock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		deletes int
		wantErr string
	}{
		{name: "done after three reconciles", deletes: 3},
		{name: "never done", deletes: maxRounds + 1, wantErr: "EnsureDeleted not done after 100 reconciles; the last returned {Done:false RequeueAfter:10s Reason:Deleting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var moved time.Duration
			c := &slowDeletes{items: newItems(items{}), deletes: tc.deletes}
			h := newHarness(itemsUnderTest(items{}), CloudFixture[itemSpec, *item]{Resource: c, Advance: func(d time.Duration) { moved += d }})
			tr := scopetest.NewTracker(scenarioOwnershipKey)
			_, err := c.Create(t.Context(), itemSpec{Size: "small"}, "token", nil)
			require.NoError(t, err)
			require.NoError(t, tr.SetResourceID("item", "item-1"))

			err = h.deletedUntilDone(t.Context(), tr, c)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, 2*step.DefaultPollInterval, moved, "two waits of the poll interval, on the fake clock")
				assert.Equal(t, scenarioEpoch.Add(moved), h.clock.Now())
				return
			}
			require.ErrorIs(t, err, errNotDone)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.NotContains(t, err.Error(), "CloudFixture.Advance", "a fixture with Advance needs no hint")
		})
	}
}

func TestRealTimeScenariosReconcileSoonerThanAsked(t *testing.T) {
	c := &slowDeletes{items: newItems(items{}), deletes: 3}
	h := newHarness(itemsUnderTest(items{}), CloudFixture[itemSpec, *item]{Resource: c})
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	_, err := c.Create(t.Context(), itemSpec{Size: "small"}, "token", nil)
	require.NoError(t, err)
	require.NoError(t, tr.SetResourceID("item", "item-1"))

	start := time.Now()
	require.NoError(t, h.deletedUntilDone(t.Context(), tr, c))
	assert.Less(t, time.Since(start), step.DefaultPollInterval, "a real-time scenario reconciles sooner than the step asks")
}

// declaredItems is an items cloud whose Resource declares its guarantees.
type declaredItems struct{ *items }

func (declaredItems) Guarantees() ensure.Guarantees {
	return ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true}
}

func TestTheClockOfAScenario(t *testing.T) {
	tests := []struct {
		name             string
		advance, declare bool
		// fake is whether ensure reads a fake clock; hint a part of the hint of a step never done.
		fake bool
		hint string
	}{
		{name: "the fixture moves its cloud's clock", advance: true, declare: true, fake: true},
		{name: "declared guarantees in real time", declare: true, hint: "so the scenarios wait in real time, at most 10ms per reconcile"},
		{name: "nothing declared", fake: true, hint: "so its cloud gets at most 10ms of real time per reconcile"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var moved time.Duration
			f := CloudFixture[itemSpec, *item]{Resource: newItems(items{})}
			if tc.declare {
				f.Resource = declaredItems{newItems(items{})}
			}
			if tc.advance {
				f.Advance = func(d time.Duration) { moved += d }
			}
			r := itemsUnderTest(items{})
			h := newHarness(r, f)

			start := time.Now()
			h.clock.wait(time.Minute)
			assert.Less(t, time.Since(start), time.Second, "a wait in real time is short")
			if tc.fake {
				assert.Equal(t, scenarioEpoch.Add(time.Minute), h.clock.Now())
				assert.Len(t, h.opts, len(r.Options)+1, "ensure reads the fake clock")
			} else {
				assert.WithinDuration(t, time.Now(), h.clock.Now(), time.Second)
				assert.Len(t, h.opts, len(r.Options))
			}
			if tc.advance {
				assert.Equal(t, time.Minute, moved, "the fixture's cloud moves along")
			}
			if tc.hint == "" {
				assert.Empty(t, h.clock.hint())
			} else {
				assert.Contains(t, h.clock.hint(), tc.hint)
			}
		})
	}
}

func TestUnthrottledWaitsTheCloudsHint(t *testing.T) {
	var moved time.Duration
	h := newHarness(itemsUnderTest(items{}), CloudFixture[itemSpec, *item]{Advance: func(d time.Duration) { moved += d }})
	errTooMany := errors.New("429")
	hints := []time.Duration{3 * time.Second, 0}
	calls := 0
	err := h.unthrottled(func() error {
		if calls++; calls <= len(hints) {
			return step.Throttled(errTooMany, hints[calls-1])
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, calls)
	assert.Equal(t, 3*time.Second+throttleWait, moved, "the hint, then throttleWait for a throttle without one")

	err = h.unthrottled(func() error { return step.Throttled(errTooMany, time.Second) })
	require.ErrorIs(t, err, errNotDone)
	assert.Contains(t, err.Error(), "the cloud still throttled the call after 100 attempts")
}
