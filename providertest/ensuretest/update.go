package ensuretest

import (
	"context"
	"errors"
	"fmt"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope/scopetest"
)

// errUpdateFailed is the error of an update the scenarios make fail.
var errUpdateFailed = errors.New("ensuretest: the update failed")

// ensureCounted runs one reconcile's Ensure of ValidSpec through a call counter on res.
func (h *harness[S, O]) ensureCounted(ctx context.Context, tr *scopetest.Tracker, res ensure.Resource[S, O], failUpdate error) (ensure.Result[O], *callCounter[S, O], error) {
	wrapped, cc := counted(res, failUpdate)
	out, err := h.exists(ctx, tr, wrapped, ensure.Given(h.r.ValidSpec))
	return out, cc, err
}

// drifted creates the resource and drifts it behind the Resource's back.
func drifted[S, O any](ctx context.Context, h *harness[S, O]) (*scopetest.Tracker, string, error) {
	if h.f.Drift == nil {
		return nil, "", errors.New("cannot run the update scenarios: the Resource is a ensure.Updater, so CloudFixture.Drift must not be nil")
	}
	tr, id, err := h.created(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := h.f.Drift(id); err != nil {
		return nil, "", fmt.Errorf("cannot drift %q: %w", id, err)
	}
	return tr, id, nil
}

// wantUpToDate checks that Ensure now finds the resource up to date: no write, Done.
func wantUpToDate[S, O any](ctx context.Context, h *harness[S, O], tr *scopetest.Tracker, when string) error {
	out, cc, err := h.ensureCounted(ctx, tr, h.f.Resource, nil)
	switch {
	case err != nil:
		return fmt.Errorf("%s: Ensure failed: %w", when, err)
	case len(cc.writes()) > 0:
		return fmt.Errorf("%s: Ensure called %q on a resource that is up to date, want no write: Diff must report no difference", when, cc.writes())
	case out.Action != ensure.ActionFound || !out.Result.Done:
		return fmt.Errorf("%s: Ensure returned action %q and %+v, want %q and Done", when, out.Action, out.Result, ensure.ActionFound)
	}
	return nil
}

func noUpdateWhenUpToDate[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, _, err := h.created(ctx)
	if err != nil {
		return err
	}
	return errors.Join(wantUpToDate(ctx, h, tr, "right after the create"), wantUpToDate(ctx, h, tr, "again"))
}

// wantUpdated checks one Ensure of a drifted resource: exactly one Update, nothing created, a result that
// says the drift was corrected.
func wantUpdated[S, O any](out ensure.Result[O], cc *callCounter[S, O], id string) error {
	var errs []error
	if w := cc.writes(); len(w) != 1 || w[0] != "Update" {
		errs = append(errs, fmt.Errorf("ensure of a drifted resource called %q, want exactly one Update", w))
	}
	if out.ID != id || out.Action != ensure.ActionUpdated || len(out.Drift) == 0 {
		errs = append(errs, fmt.Errorf("ensure of a drifted resource returned ID %q, action %q, drift %q, want ID %q, action %q and the drifted fields",
			out.ID, out.Action, out.Drift, id, ensure.ActionUpdated))
	}
	if out.Result.Done || out.Result.Reason != conditions.ReasonDriftCorrected {
		errs = append(errs, fmt.Errorf("ensure of a drifted resource returned %+v, want reason %s (not done until read again)", out.Result, conditions.ReasonDriftCorrected))
	}
	return errors.Join(errs...)
}

func updatesDriftOnce[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, id, err := drifted(ctx, h)
	if err != nil {
		return err
	}
	out, cc, err := h.ensureCounted(ctx, tr, h.f.Resource, nil)
	if err != nil {
		return fmt.Errorf("cannot ensure a drifted resource: %w", err)
	}
	return errors.Join(wantUpdated(out, cc, id), wantCount(h.f, 1, "after the update (the resource was re-created)"),
		wantUpToDate(ctx, h, tr, "after the update"))
}

func updateFailureIsRetried[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, id, err := drifted(ctx, h)
	if err != nil {
		return err
	}
	_, _, err = h.ensureCounted(ctx, tr, h.f.Resource, errUpdateFailed)
	switch c := classOf(err); {
	case err == nil:
		return errors.New("ensure succeeded although its update failed: want an error that is retried")
	case !retried(c):
		return fmt.Errorf("ensure after a failed update returned %w, of class %s, want an error that is retried (Transient or Throttled)", err, c)
	}
	out, cc, err := h.ensureCounted(ctx, tr, h.f.Resource, nil)
	if err != nil {
		return fmt.Errorf("retry of Ensure failed: %w", err)
	}
	return errors.Join(wantUpdated(out, cc, id), wantCount(h.f, 1, "after the retried update"))
}

// changeDuringUpdate: something changes the resource again while Ensure updates it; the next Ensure sees the
// new drift and updates again, and never re-creates.
func changeDuringUpdate[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, id, err := drifted(ctx, h)
	if err != nil {
		return err
	}
	u := h.f.Resource.(ensure.Updater[S, O])
	racing := wrap(h.f.Resource, h.f.Resource, func(ctx context.Context, id string, spec S, obs O) (O, error) {
		out, err := u.Update(ctx, id, spec, obs)
		if err == nil {
			err = h.f.Drift(id) // the out-of-band change lands right after the update
		}
		return out, err
	})
	if _, _, err := h.ensureCounted(ctx, tr, racing, nil); err != nil {
		return fmt.Errorf("cannot ensure a drifted resource: %w", err)
	}
	out, cc, err := h.ensureCounted(ctx, tr, h.f.Resource, nil)
	if err != nil {
		return fmt.Errorf("cannot ensure after the racing change: %w", err)
	}
	return errors.Join(wantUpdated(out, cc, id), wantCount(h.f, 1, "after the racing change"),
		wantUpToDate(ctx, h, tr, "after the second update"))
}

func lazySpec[S, O any](ctx context.Context, h *harness[S, O]) error {
	computed := map[int]int{} // by reconcile
	spec := ensure.Lazy(func(context.Context) (S, error) { computed[h.reconciles]++; return h.r.ValidSpec, nil })
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	if _, err := h.ensureSpecUntilDone(ctx, tr, h.f.Resource, spec); err != nil {
		return fmt.Errorf("cannot ensure with a lazy spec: %w", err)
	}
	var errs []error
	if len(computed) == 0 {
		errs = append(errs, errors.New("a create never computed the lazy spec, want it computed to create"))
	}
	for reconcile, n := range computed {
		if n > 1 {
			errs = append(errs, fmt.Errorf("reconcile %d computed the lazy spec %d times, want at most 1", reconcile, n))
		}
	}
	clear(computed)
	if _, err := h.exists(ctx, tr, h.f.Resource, spec); err != nil {
		return fmt.Errorf("cannot ensure the found resource with a lazy spec: %w", err)
	}
	want := 0
	if _, ok := h.f.Resource.(ensure.Updater[S, O]); ok {
		want = 1 // Diff compares the found resource with it
	}
	if n := computed[h.reconciles]; n != want {
		errs = append(errs, fmt.Errorf("ensure of a found resource computed the lazy spec %d times, want %d", n, want))
	}
	return errors.Join(append(errs, wantCount(h.f, 1, "after Ensures with a lazy spec"))...)
}

func waitsWhilePending[S, O any](ctx context.Context, h *harness[S, O]) error {
	if _, ok := h.f.Resource.(ensure.PendingReporter[O]); !ok {
		return errors.New("cannot run the pending scenario: CloudFixture.MakePending is set, so the Resource must implement ensure.PendingReporter")
	}
	tr, id, err := h.created(ctx)
	if err != nil {
		return err
	}
	if err := h.f.MakePending(id); err != nil {
		return fmt.Errorf("cannot make %q pending: %w", id, err)
	}
	out, cc, err := h.ensureCounted(ctx, tr, h.f.Resource, nil)
	if err != nil {
		return fmt.Errorf("cannot ensure a pending resource: %w", err)
	}
	var errs []error
	if w := cc.writes(); len(w) > 0 {
		errs = append(errs, fmt.Errorf("ensure of a pending resource called %q, want no write", w))
	}
	if out.ID != id || out.Result.Done || out.Result.Reason == "" || out.Result.RequeueAfter <= 0 {
		errs = append(errs, fmt.Errorf("ensure of a pending resource returned ID %q and %+v, want ID %q and a result that is not done, with a reason and a requeue: Pending must report the state",
			out.ID, out.Result, id))
	}
	return errors.Join(append(errs, wantCount(h.f, 1, "while pending"))...)
}
