package ensuretest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope/scopetest"
)

// How the scenarios reconcile: the way a controller does, again after a step's RequeueAfter while it is not
// done, and after the cloud's hint while the cloud throttles.
const (
	// maxRounds bounds the reconciles of one step until it is done, and the attempts of one throttled call.
	maxRounds = 100
	// realWait bounds one wait of a fixture without CloudFixture.Advance: the scenario reconciles sooner than
	// the step asked, as a controller does when an event arrives, so that it runs in real time.
	realWait = 10 * time.Millisecond
	// throttleWait is the wait after a throttled call without a hint (step.Throttled with no RetryAfter).
	throttleWait = time.Second
)

// scenarioEpoch is the time on the clock of a fixture with CloudFixture.Advance when a scenario starts.
var scenarioEpoch = time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC)

// errNotDone is the error of a step that was still not done after maxRounds reconciles.
var errNotDone = errors.New("ensuretest: not done")

// clock is the time of a scenario. ensure reads a fake one (ensure.WithClock) that moves by what each step asks
// to wait, when the fixture moves its cloud's clock along (CloudFixture.Advance) or when its Resource declares
// no guarantees (the zero ensure.Guarantees, as a fixture written before they existed, whose scenarios assumed a
// cloud that does not depend on time, and still do); real time otherwise. A fixture without Advance gets real time between reconciles.
type clock struct {
	advance func(time.Duration) // the fixture's, nil when it has none
	fake    bool
	now     time.Time
}

// Now returns the scenario's time.
func (c *clock) Now() time.Time {
	if !c.fake {
		return time.Now()
	}
	return c.now
}

// wait lets d pass: at once on the fixture's clock, at most realWait in real time.
func (c *clock) wait(d time.Duration) {
	if c.fake {
		c.now = c.now.Add(d)
	}
	if c.advance != nil {
		c.advance(d)
		return
	}
	time.Sleep(min(d, realWait))
}

// hint explains a step that never got done on this clock.
func (c *clock) hint() string {
	switch {
	case c.advance != nil:
		return ""
	case c.fake:
		return fmt.Sprintf(" (the fixture has no CloudFixture.Advance, so its cloud gets at most %s of real time per reconcile)", realWait)
	}
	return fmt.Sprintf(" (the fixture has no CloudFixture.Advance, so the scenarios wait in real time, at most %s per reconcile: "+
		"declare the cloud's ensure.Guarantees with short lags, or give the fixture Advance)", realWait)
}

// harness is one scenario: the Resource under test, its fixture, and the clock it reconciles with.
type harness[S, O any] struct {
	r     ResourceUnderTest[S, O]
	f     CloudFixture[S, O]
	clock *clock
	// opts are r.Options, and the clock for ensure when it is fake.
	opts []ensure.Option
	// reconciles counts the calls of ensure.Exists.
	reconciles int
}

func newHarness[S, O any](r ResourceUnderTest[S, O], f CloudFixture[S, O]) *harness[S, O] {
	declaresNothing := guarantees(f.Resource) == ensure.Guarantees{}
	c := &clock{advance: f.Advance, fake: f.Advance != nil || declaresNothing, now: scenarioEpoch}
	h := &harness[S, O]{r: r, f: f, clock: c, opts: slices.Clone(r.Options)}
	if c.fake {
		h.opts = append(h.opts, ensure.WithClock(c.Now))
	}
	return h
}

// key is the resource key of the scenarios.
func (h *harness[S, O]) key() string { return key(h.r) }

// unthrottled calls fn, and again after the cloud's hint while the cloud throttles it (step.Throttled), as the
// reconcilers requeue a throttled step.
func (h *harness[S, O]) unthrottled(fn func() error) error {
	for range maxRounds {
		err := fn()
		var th *step.ThrottledError
		if !errors.As(err, &th) {
			return err
		}
		wait := th.RetryAfter
		if wait <= 0 {
			wait = throttleWait
		}
		h.clock.wait(wait)
	}
	return fmt.Errorf("%w: the cloud still throttled the call after %d attempts", errNotDone, maxRounds)
}

// exists is one reconcile's Exists of spec on res.
func (h *harness[S, O]) exists(ctx context.Context, tr *scopetest.Tracker, res ensure.Resource[S, O], spec ensure.Spec[S]) (ensure.Result[O], error) {
	var out ensure.Result[O]
	err := h.unthrottled(func() (err error) {
		h.reconciles++
		out, err = ensure.Exists(ctx, tr, h.key(), res, spec, h.opts...)
		return err
	})
	return out, err
}

// converged is what the reconciles of ensureUntilDone saw.
type converged[O any] struct {
	// out is the result of the last reconcile.
	out ensure.Result[O]
	// recorded is the action of the first reconcile that returned an ID: how the resource came to the tracker
	// (ensure.ActionCreated, ensure.ActionAdopted), or ensure.ActionFound when it was there already.
	recorded ensure.Action
}

// ensureUntilDone reconciles Exists of ValidSpec on res until it is settled: its result is Done, or the
// resource is recorded and waits only for itself (the Resource's ensure.PendingReporter reports it pending, as a
// Pod waits for a node: a controller would wait as long as it takes). It returns the first error that is not
// throttling as it is, and an error wrapping errNotDone after maxRounds reconciles.
func (h *harness[S, O]) ensureUntilDone(ctx context.Context, tr *scopetest.Tracker, res ensure.Resource[S, O]) (converged[O], error) {
	return h.ensureSpecUntilDone(ctx, tr, res, ensure.Given(h.r.ValidSpec))
}

// ensureSpecUntilDone is ensureUntilDone of spec.
func (h *harness[S, O]) ensureSpecUntilDone(ctx context.Context, tr *scopetest.Tracker, res ensure.Resource[S, O], spec ensure.Spec[S]) (converged[O], error) {
	var c converged[O]
	for range maxRounds {
		out, err := h.exists(ctx, tr, res, spec)
		c.out = out
		if err != nil {
			return c, err
		}
		if out.ID != "" && c.recorded == "" {
			c.recorded = out.Action
		}
		if out.Result.Done || (out.ID != "" && reportsPending(res, out.Observed)) {
			return c, nil
		}
		if err := wantRequeue("Ensure", out.Result); err != nil {
			return c, err
		}
		h.clock.wait(out.Result.RequeueAfter)
	}
	return c, fmt.Errorf("%w: Ensure not done after %d reconciles; the last returned %+v%s", errNotDone, maxRounds, c.out.Result, h.clock.hint())
}

// deletedUntilDone reconciles Deleted on res until its result is Done.
func (h *harness[S, O]) deletedUntilDone(ctx context.Context, tr *scopetest.Tracker, res ensure.Resource[S, O]) error {
	var last step.Result
	for range maxRounds {
		err := h.unthrottled(func() (err error) {
			last, err = ensure.Deleted(ctx, tr, h.key(), res, h.opts...)
			return err
		})
		switch {
		case err != nil:
			return fmt.Errorf("EnsureDeleted failed: %w", err)
		case last.Done:
			return nil
		}
		if err := wantRequeue("EnsureDeleted", last); err != nil {
			return err
		}
		h.clock.wait(last.RequeueAfter)
	}
	return fmt.Errorf("%w: EnsureDeleted not done after %d reconciles; the last returned %+v%s", errNotDone, maxRounds, last, h.clock.hint())
}

// reportsPending reports whether r reports obs in a transitional state (ensure.PendingReporter).
func reportsPending[S, O any](r ensure.Resource[S, O], obs O) bool {
	p, ok := r.(ensure.PendingReporter[O])
	if !ok {
		return false
	}
	_, _, is := p.Pending(obs)
	return is
}

// wantRequeue checks that a step result that is not done says why and when to look again.
func wantRequeue(what string, res step.Result) error {
	if res.RequeueAfter <= 0 || res.Reason == "" {
		return fmt.Errorf("%s returned a result that is not done without a reason and a requeue: %+v", what, res)
	}
	return nil
}

// listed waits until FindByTags with the scenarios' ownership tags lists id, at most the search lag that the
// Resource declares after since, the start of its create.
func (h *harness[S, O]) listed(ctx context.Context, id string, since time.Time) error {
	lag := declaredLag(guarantees(h.f.Resource))
	tags := ensure.OwnershipTags(scenarioOwnershipKey, h.key())
	for round := 0; ; round++ {
		var obs O
		var found bool
		err := h.unthrottled(func() (err error) {
			obs, found, err = h.f.Resource.FindByTags(ctx, tags)
			return err
		})
		switch {
		case err != nil:
			return fmt.Errorf("FindByTags with the ownership tags failed: %w", err)
		case found && h.f.Resource.ID(obs) != id:
			return fmt.Errorf("FindByTags with the ownership tags returned %q, want %q", h.f.Resource.ID(obs), id)
		case found:
			return nil
		}
		left := since.Add(lag).Sub(h.clock.Now())
		if left <= 0 || round >= maxRounds {
			return fmt.Errorf("FindByTags with the ownership tags did not list %q within %s of its create, the search lag the Resource declares (ensure.Guarantees): "+
				"Create must put the tags on the resource, and FindByTags must find the resource by its ownership tags%s", id, lag, h.clock.hint())
		}
		h.clock.wait(min(left, max(lag/10, time.Millisecond)))
	}
}

// guarantees returns what r declares of its cloud; the zero Guarantees when it declares nothing.
func guarantees[S, O any](r ensure.Resource[S, O]) ensure.Guarantees {
	if d, ok := r.(ensure.Declarer); ok {
		return d.Guarantees()
	}
	return ensure.Guarantees{}
}

// declaredLag is how long after a create began the search may miss its resource, as ensure reads g.
func declaredLag(g ensure.Guarantees) time.Duration {
	switch {
	case g.ImmediateSearch:
		return 0
	case g.SearchLag > 0:
		return g.SearchLag
	}
	return ensure.DefaultSearchLag
}

// idempotent reports whether g says that a repeated Create returns the first resource.
func idempotent(g ensure.Guarantees) bool {
	return g.Idempotency == ensure.IdempotentByToken || g.Idempotency == ensure.IdempotentByName
}

// reachedCloud reports whether a Create that returned err made its change: it succeeded, or the cloud accepted
// it as an operation (ensure.Accepted).
func reachedCloud(err error) bool {
	var accepted *ensure.AcceptedError
	return err == nil || errors.As(err, &accepted)
}
