package ensuretest

import (
	"context"
	"errors"
	"fmt"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope/scopetest"
)

// The scenarios of asynchronous creates (CloudFixture.AsyncCreate) and of the guarantees a Resource declares
// (ensure.Declarer).

// started checks out, the result of the Ensure that started an asynchronous create: not done, without an ID,
// with a reason and a requeue, and the operation noted and persisted on tr.
func (h *harness[S, O]) started(tr *scopetest.Tracker, out ensure.Result[O]) error {
	if out.ID != "" || out.Result.Done {
		return fmt.Errorf("the Ensure that started the create returned ID %q and %+v, want no ID and a result that is not done: "+
			"with CloudFixture.AsyncCreate, Create must return ensure.Accepted, and Ensure must not wait for the operation", out.ID, out.Result)
	}
	if err := wantRequeue("the Ensure that started the create", out.Result); err != nil {
		return err
	}
	if _, ok := tr.PersistedNotes()[h.key()]; !ok {
		return errors.New("the Ensure that started the create persisted no note of its operation, want one on the tracker (scope.PendingTracker)")
	}
	return nil
}

// start runs the Ensure that starts an asynchronous create on a fresh tracker of ownershipKey.
func (h *harness[S, O]) start(ctx context.Context, ownershipKey string) (*scopetest.Tracker, error) {
	tr := scopetest.NewTracker(ownershipKey)
	out, err := h.exists(ctx, tr, h.f.Resource, ensure.Given(h.r.ValidSpec))
	if err != nil {
		return nil, fmt.Errorf("cannot start the create: %w", err)
	}
	return tr, h.started(tr, out)
}

func asyncHoldsNoWorker[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, err := h.start(ctx, scenarioOwnershipKey)
	if err != nil {
		return err
	}
	c, err := h.ensureUntilDone(ctx, tr, h.f.Resource)
	if err != nil {
		return fmt.Errorf("cannot ensure once the create started: %w", err)
	}
	var errs []error
	if c.recorded != ensure.ActionCreated || c.out.ID == "" {
		errs = append(errs, fmt.Errorf("ensure of the started create recorded ID %q with action %q, want an ID and action %q: PollOperation must return the resource of the finished operation",
			c.out.ID, c.recorded, ensure.ActionCreated))
	}
	if note, ok := tr.PersistedNotes()[h.key()]; ok {
		errs = append(errs, fmt.Errorf("the tracker still holds the note %q once the resource is recorded, want it cleared", note))
	}
	return errors.Join(append(errs, wantCount(h.f, 1, "after the create"), wantPersisted(tr, h.key(), c.out.ID))...)
}

func crashAfterOperationEnded[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	if err := h.crash(ctx, tr, crashAfterOperation(h.f.Resource, tr)); err != nil {
		return fmt.Errorf("%w (with CloudFixture.AsyncCreate, Create must return ensure.Accepted)", err)
	}
	if err := wantCount(h.f, 1, "after the operation ended"); err != nil {
		return err
	}
	return h.recovered(ctx, tr.Restart(), h.f.Resource)
}

// deletedDuringCreate: the object is deleted while its create runs and the controller is down, once after the
// operation was noted, once right after the create call; each time EnsureDeleted until done leaves nothing,
// also once the operation has ended.
func deletedDuringCreate[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, err := h.start(ctx, scenarioOwnershipKey)
	if err != nil {
		return err
	}
	if err := h.deletedUntilDone(ctx, tr.Restart(), h.f.Resource); err != nil {
		return fmt.Errorf("delete while the noted create operation runs: %w", err)
	}
	if err := wantCount(h.f, 0, "after EnsureDeleted while the noted create operation ran (leaked)"); err != nil {
		return err
	}
	// Another owner: a cloud may refuse the idempotency token of a deleted resource.
	tr = scopetest.NewTracker(scenarioOwnershipKey + "-2")
	if err := h.crash(ctx, tr, crashAfterCreate(h.f.Resource, tr)); err != nil {
		return err
	}
	if err := h.deletedUntilDone(ctx, tr.Restart(), h.f.Resource); err != nil {
		return fmt.Errorf("delete right after the create call: %w", err)
	}
	return wantCount(h.f, 0, "after EnsureDeleted of a create whose operation was never noted (leaked: the search must list a resource within the SearchLag that the Resource declares)")
}

func failedOperation[S, O any](ctx context.Context, h *harness[S, O]) error {
	if err := h.f.FailNextOperation(); err != nil {
		return fmt.Errorf("cannot make the next operation fail: %w", err)
	}
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	c, err := h.ensureUntilDone(ctx, tr, h.f.Resource)
	if err != nil {
		return fmt.Errorf("cannot ensure after a failed create operation: %w (PollOperation must return an error wrapping ensure.ErrOperationFailed)", err)
	}
	var errs []error
	if c.recorded != ensure.ActionCreated || c.out.ID == "" {
		errs = append(errs, fmt.Errorf("ensure after a failed create operation recorded ID %q with action %q, want an ID and action %q", c.out.ID, c.recorded, ensure.ActionCreated))
	}
	return errors.Join(append(errs, wantCount(h.f, 1, "after the second create"), wantPersisted(tr, h.key(), c.out.ID))...)
}

// wantAdopted checks how the restarted controller recorded the resource.
func wantAdopted[O any](c converged[O], why string) error {
	if c.recorded != ensure.ActionAdopted {
		return fmt.Errorf("ensure after the restart recorded ID %q with action %q, want action %q: %s", c.out.ID, c.recorded, ensure.ActionAdopted, why)
	}
	return nil
}

func noSecondCreateWhileSearchLags[S, O any](ctx context.Context, h *harness[S, O]) error {
	restarted, err := h.crashAndRestart(ctx, true)
	if err != nil {
		return err
	}
	res, cc := counted(h.f.Resource, nil)
	return h.recovered(ctx, restarted, res, func(c converged[O]) error {
		var err error
		if n := cc.count("Create"); n > 0 {
			err = fmt.Errorf("ensure after the restart called Create %d times, want none: "+
				"without idempotent creates it must wait until the search lists the first resource, within the SearchLag that the Resource declares", n)
		}
		return errors.Join(err, wantAdopted(c, "the first resource must be found by its ownership tags"))
	})
}

func adoptsThroughIdempotency[S, O any](ctx context.Context, h *harness[S, O]) error {
	// Without an immediate search the search lags when it can, so that the idempotent create finds the resource.
	restarted, err := h.crashAndRestart(ctx, !guarantees(h.f.Resource).ImmediateSearch)
	if err != nil {
		return err
	}
	return h.recovered(ctx, restarted, h.f.Resource, func(c converged[O]) error {
		return wantAdopted(c, "a resource that the search or an idempotent create returns for an earlier create is adopted")
	})
}
