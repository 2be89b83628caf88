package ensuretest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope/scopetest"
)

// OutOfBandDelete says what a resource does when the resource its tracker records was deleted behind the
// provider's back (by a user in the cloud console, or by a cloud-side cleanup).
type OutOfBandDelete int

const (
	// Recreate means the next Ensure creates a new resource and records its ID; for clouds whose idempotency
	// tokens may be reused once their resource is gone, or that have no tokens.
	Recreate OutOfBandDelete = iota
	// ReportTerminal means the cloud refuses to reuse the idempotency token of a deleted resource, and the
	// Resource returns a step.TerminalError: nothing is created, a user must look.
	ReportTerminal
)

// String returns "Recreate" or "ReportTerminal".
func (o OutOfBandDelete) String() string {
	if o == ReportTerminal {
		return "ReportTerminal"
	}
	return "Recreate"
}

// CloudFixture is a fresh cloud (or fake, or sandbox account) and the provider's ensure.Resource on it,
// for one scenario. The hooks let a scenario look into and act on the cloud behind the Resource's back.
type CloudFixture[S, O any] struct {
	// Resource is the provider's Resource under test. Required.
	Resource ensure.Resource[S, O]
	// Count returns how many resources of the kind under test exist in the fixture's cloud. Required.
	Count func() int
	// DeleteOutOfBand deletes the resource id without going through Resource. Required.
	DeleteOutOfBand func(id string) error
	// FailNextCreateAfterChange makes the cloud's next create succeed and then return an error (the
	// response is lost). Optional: without it the scenarios wrap Resource.Create to the same effect.
	FailNextCreateAfterChange func() error
	// LagSearch makes the resources created from now on invisible to the next search by tags (an
	// eventually consistent tag index). Optional: with it, the crash and lost-response scenarios also run
	// with a lagging search, where only the idempotency token prevents a duplicate.
	LagSearch func() error
	// Drift changes the resource id behind the Resource's back, so that it differs from ValidSpec in a
	// field that can be updated in place. Required when Resource implements ensure.Updater: the update
	// scenarios run with it.
	Drift func(id string) error
	// MakePending puts the resource id into a transitional state (creating, updating) that the Resource's
	// ensure.PendingReporter reports. Optional: with it, the pending scenario runs, and the Resource must
	// implement ensure.PendingReporter.
	MakePending func(id string) error
}

// ResourceUnderTest describes a provider's ensure.Resource for RunScenarios.
type ResourceUnderTest[S, O any] struct {
	// Key is the resource key passed to Ensure; "resource" when empty.
	Key string
	// New returns a fresh fixture; it is called once per scenario, with the scenario's test.
	New func(t testing.TB) CloudFixture[S, O]
	// ValidSpec is a spec Validate accepts and the cloud creates.
	ValidSpec S
	// InvalidSpec is a spec Validate must reject before any cloud call.
	InvalidSpec S
	// OutOfBandDelete is what the Resource does after an out-of-band deletion.
	OutOfBandDelete OutOfBandDelete
	// Options are passed to every Ensure (e.g. ensure.WithTags).
	Options []ensure.Option
	// RequireAll makes RunScenarios fail when the fixture cannot run every scenario (a CloudFixture hook
	// such as LagSearch or MakePending is nil, or the Resource is not a ensure.Updater), naming what is
	// missing. Without it, RunScenarios runs the scenarios the fixture can run and logs the others.
	RequireAll bool
}

// scenarioOwnershipKey is the ownership key of the scenarios' trackers.
const scenarioOwnershipKey = "ensuretest-owner"

// errCrash is the error of a checkpoint that never happened.
var errCrash = errors.New("ensuretest: the controller died before the resource ID was persisted")

// errLostResponse is the error of a create whose response was lost.
var errLostResponse = errors.New("ensuretest: the create response was lost after the resource was created")

// ensureScenario is one standard scenario: it returns nil when the resource behaves.
type ensureScenario[S, O any] struct {
	name string
	// needs reports whether a fixture can run the scenario; nil for a scenario every fixture runs.
	needs func(CloudFixture[S, O]) bool
	// requires names what needs checks, for the report of a scenario that is not run.
	requires string
	run      func(ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error
}

// tester is what RunScenarios needs of its test: a testing.TB that runs subtests. The package's tests give
// it a fake that records what a failing RunScenarios reports.
type tester interface {
	testing.TB
	Run(name string, f func(t testing.TB)) bool
}

// subtests is the tester of a *testing.T.
type subtests struct{ *testing.T }

// Run runs f as the subtest name of t.
func (t subtests) Run(name string, f func(t testing.TB)) bool {
	return t.T.Run(name, func(t *testing.T) { f(t) })
}

// RunScenarios runs, as subtests of t, the standard scenarios every cloud resource managed with
// ensure.Exists must pass, each on a fresh fixture from r.New:
//
//   - CreatesWhenAbsent: Validate accepts ValidSpec; Ensure creates one resource with the ownership tags and
//     persists its ID.
//   - FindsTrackedResource: a second Ensure finds the tracked ID, creates nothing and writes nothing.
//   - AdoptsAfterStatusLoss: after clusterctl move (status lost, ownership key kept) Ensure adopts the
//     resource by its tags.
//   - NoDuplicateAfterCrashBeforeRecord: the controller dies between the create and the write of the ID;
//     the next Ensure finds the same resource.
//   - NoDuplicateAfterLostCreateResponse: the create succeeds but returns an error; the error is not
//     terminal, so it is retried, and the retry finds the same resource.
//   - HandlesOutOfBandDeletion: the tracked resource is deleted behind the provider's back; Ensure recreates
//     it or reports a terminal error, as r.OutOfBandDelete says, and never returns the stale ID.
//   - DeleteIsIdempotent: EnsureDeleted removes the resource and forgets its ID; deleting again, deleting an
//     ID already gone (NotFound) and deleting before any ownership key are all successes.
//   - DeleteRemovesUntrackedResource: a resource whose ID was never persisted is deleted by its tags.
//   - RejectsInvalidParameters: Ensure(InvalidSpec) fails with a terminal InvalidParameters error before
//     any cloud call.
//   - LazySpecComputedOnlyWhenNeeded: a reconcile.Lazy spec is computed once to create, and not at all when
//     the resource is found (once, for the comparison, when the Resource is a ensure.Updater).
//
// With CloudFixture.LagSearch, the tag search misses the new resource, so only the idempotency token
// prevents a duplicate:
//
//   - NoDuplicateAfterCrashBeforeRecordWithSearchLag and NoDuplicateAfterLostCreateResponseWithSearchLag.
//
// For a Resource that implements ensure.Updater (its fixture has Drift):
//
//   - NoUpdateWhenUpToDate: Ensure of a resource that matches its spec calls no Update.
//   - UpdatesDriftOnce: a resource changed behind the provider's back is updated in place with one Update,
//     never re-created, with reason DriftCorrected; the next Ensure finds it up to date.
//   - UpdateFailureIsRetried: a failed Update is an error that is retried, and the retry updates.
//   - OutOfBandChangeDuringUpdate: a change that lands right after the Update is found and corrected by
//     the next Ensure.
//
// With CloudFixture.MakePending (the Resource implements ensure.PendingReporter):
//
//   - WaitsWhilePending: Ensure of a resource in a transitional state writes nothing and returns a result
//     that is not done, with a reason and a requeue.
//
// RunScenarios calls r.New once more, with t, to learn which of these the fixture can run. A scenario it
// cannot run gets no subtest, so it reports neither PASS nor SKIP: RunScenarios logs once which scenarios
// were not run and what each needs, or, with r.RequireAll, fails t naming them. Every fixture from r.New
// must have the same optional hooks; a subtest whose fixture lacks one that the first fixture had fails.
func RunScenarios[S, O any](t *testing.T, r ResourceUnderTest[S, O]) {
	t.Helper()
	runScenarios(subtests{t}, r)
}

// runScenarios is RunScenarios on a tester.
func runScenarios[S, O any](t tester, r ResourceUnderTest[S, O]) {
	t.Helper()
	if r.New == nil {
		t.Fatal("cannot run the ensure scenarios: ResourceUnderTest.New must not be nil")
	}
	first := r.New(t)
	if err := validateFixture(first); err != nil {
		t.Fatal(err)
	}
	all := ensureScenarios[S, O]()
	run, notRun := plan(all, first)
	if len(notRun) > 0 {
		report := notRunReport(notRun)
		if r.RequireAll {
			t.Errorf("cannot run %d of the %d ensure scenarios, and ResourceUnderTest.RequireAll is set:\n%s", len(notRun), len(all), report)
		} else {
			t.Logf("%d of the %d ensure scenarios were not run (set ResourceUnderTest.RequireAll to fail instead):\n%s", len(notRun), len(all), report)
		}
	}
	for _, sc := range run {
		t.Run(sc.name, func(t testing.TB) {
			f := r.New(t)
			if err := validateFixture(f); err != nil {
				t.Fatal(err)
			}
			if sc.needs != nil && !sc.needs(f) {
				t.Fatalf("cannot run the scenario: it needs %s, which the first fixture from ResourceUnderTest.New had and this one has not", sc.requires)
			}
			if err := sc.run(t.Context(), r, f); err != nil {
				t.Error(err)
			}
		})
	}
}

// plan splits scenarios into those fixture f can run and those it cannot.
func plan[S, O any](scenarios []ensureScenario[S, O], f CloudFixture[S, O]) (run, notRun []ensureScenario[S, O]) {
	for _, sc := range scenarios {
		if sc.needs != nil && !sc.needs(f) {
			notRun = append(notRun, sc)
			continue
		}
		run = append(run, sc)
	}
	return run, notRun
}

// notRunReport lists the scenarios not run, one line each with what it needs.
func notRunReport[S, O any](notRun []ensureScenario[S, O]) string {
	lines := make([]string, 0, len(notRun))
	for _, sc := range notRun {
		lines = append(lines, fmt.Sprintf("\tnot run: %s (needs %s)", sc.name, sc.requires))
	}
	return strings.Join(lines, "\n")
}

func validateFixture[S, O any](f CloudFixture[S, O]) error {
	switch {
	case f.Resource == nil:
		return errors.New("cannot run the scenario: CloudFixture.Resource must not be nil")
	case f.Count == nil:
		return errors.New("cannot run the scenario: CloudFixture.Count must not be nil")
	case f.DeleteOutOfBand == nil:
		return errors.New("cannot run the scenario: CloudFixture.DeleteOutOfBand must not be nil")
	}
	return nil
}

func ensureScenarios[S, O any]() []ensureScenario[S, O] {
	lag := func(f CloudFixture[S, O]) bool { return f.LagSearch != nil }
	updater := func(f CloudFixture[S, O]) bool { _, ok := f.Resource.(ensure.Updater[S, O]); return ok }
	pending := func(f CloudFixture[S, O]) bool { return f.MakePending != nil }
	return []ensureScenario[S, O]{
		{name: "CreatesWhenAbsent", run: createsWhenAbsent[S, O]},
		{name: "FindsTrackedResource", run: findsTracked[S, O]},
		{name: "AdoptsAfterStatusLoss", run: adoptsAfterStatusLoss[S, O]},
		{name: "NoDuplicateAfterCrashBeforeRecord", run: crashBeforeRecord[S, O](false)},
		{name: "NoDuplicateAfterCrashBeforeRecordWithSearchLag", needs: lag, requires: "CloudFixture.LagSearch", run: crashBeforeRecord[S, O](true)},
		{name: "NoDuplicateAfterLostCreateResponse", run: lostCreateResponse[S, O](false)},
		{name: "NoDuplicateAfterLostCreateResponseWithSearchLag", needs: lag, requires: "CloudFixture.LagSearch", run: lostCreateResponse[S, O](true)},
		{name: "HandlesOutOfBandDeletion", run: outOfBandDeletion[S, O]},
		{name: "DeleteIsIdempotent", run: deleteIdempotent[S, O]},
		{name: "DeleteRemovesUntrackedResource", run: deleteUntracked[S, O]},
		{name: "RejectsInvalidParameters", run: rejectsInvalid[S, O]},
		{name: "LazySpecComputedOnlyWhenNeeded", run: lazySpec[S, O]},
		{name: "NoUpdateWhenUpToDate", needs: updater, requires: "CloudFixture.Resource to implement ensure.Updater", run: noUpdateWhenUpToDate[S, O]},
		{name: "UpdatesDriftOnce", needs: updater, requires: "CloudFixture.Resource to implement ensure.Updater", run: updatesDriftOnce[S, O]},
		{name: "UpdateFailureIsRetried", needs: updater, requires: "CloudFixture.Resource to implement ensure.Updater", run: updateFailureIsRetried[S, O]},
		{name: "OutOfBandChangeDuringUpdate", needs: updater, requires: "CloudFixture.Resource to implement ensure.Updater", run: changeDuringUpdate[S, O]},
		{name: "WaitsWhilePending", needs: pending, requires: "CloudFixture.MakePending", run: waitsWhilePending[S, O]},
	}
}

func key[S, O any](r ResourceUnderTest[S, O]) string {
	if r.Key == "" {
		return "resource"
	}
	return r.Key
}

func ensureOnce[S, O any](ctx context.Context, tr *scopetest.Tracker, r ResourceUnderTest[S, O], res ensure.Resource[S, O]) (ensure.Result[O], error) {
	return ensure.Exists(ctx, tr, key(r), res, ensure.Given(r.ValidSpec), r.Options...)
}

// created runs Ensure on a fresh tracker and checks that it created one resource.
func created[S, O any](ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) (*scopetest.Tracker, string, error) {
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	out, err := ensureOnce(ctx, tr, r, f.Resource)
	if err != nil {
		return nil, "", fmt.Errorf("cannot ensure a new resource: %w", err)
	}
	if out.Action != ensure.ActionCreated || out.ID == "" {
		return nil, "", fmt.Errorf("ensure of a new resource returned %+v, want action %q and an ID", out, ensure.ActionCreated)
	}
	return tr, out.ID, nil
}

func wantCount[S, O any](f CloudFixture[S, O], want int, when string) error {
	if n := f.Count(); n != want {
		return fmt.Errorf("%s: the cloud holds %d resources, want %d", when, n, want)
	}
	return nil
}

func wantPersisted(tr *scopetest.Tracker, k, id string) error {
	if got := tr.Persisted()[k]; got != id {
		return fmt.Errorf("persisted ID of %q is %q, want %q", k, got, id)
	}
	return nil
}

func createsWhenAbsent[S, O any](ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
	if err := f.Resource.Validate(r.ValidSpec); err != nil {
		return fmt.Errorf("Validate rejected ValidSpec: %w", err)
	}
	tr, id, err := created(ctx, r, f)
	if err != nil {
		return err
	}
	obs, ok, err := f.Resource.FindByTags(ctx, ensure.OwnershipTags(scenarioOwnershipKey, key(r)))
	return errors.Join(
		wantCount(f, 1, "after Ensure"),
		wantPersisted(tr, key(r), id),
		func() error {
			if err != nil || !ok || f.Resource.ID(obs) != id {
				return fmt.Errorf("FindByTags with the ownership tags returned (found %v, %w), want %q: Create must put the tags on the resource", ok, err, id)
			}
			return nil
		}(),
	)
}

func findsTracked[S, O any](ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
	tr, id, err := created(ctx, r, f)
	if err != nil {
		return err
	}
	writes := tr.Writes()
	out, err := ensureOnce(ctx, tr, r, f.Resource)
	if err != nil {
		return fmt.Errorf("second Ensure failed: %w", err)
	}
	var errs []error
	if out.ID != id || out.Action != ensure.ActionFound || f.Resource.ID(out.Observed) != id {
		errs = append(errs, fmt.Errorf("second Ensure returned ID %q, action %q, observed ID %q, want ID %q and action %q: Get must return the tracked resource",
			out.ID, out.Action, f.Resource.ID(out.Observed), id, ensure.ActionFound))
	}
	if tr.Writes() != writes {
		errs = append(errs, fmt.Errorf("second Ensure wrote the object %d more times, want none", tr.Writes()-writes))
	}
	return errors.Join(append(errs, wantCount(f, 1, "after the second Ensure"))...)
}

func adoptsAfterStatusLoss[S, O any](ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
	tr, id, err := created(ctx, r, f)
	if err != nil {
		return err
	}
	moved := tr.Moved()
	out, err := ensureOnce(ctx, moved, r, f.Resource)
	if err != nil {
		return fmt.Errorf("cannot ensure after the status was lost: %w", err)
	}
	var errs []error
	if out.ID != id || out.Action != ensure.ActionAdopted {
		errs = append(errs, fmt.Errorf("ensure after the status was lost returned ID %q and action %q, want ID %q and action %q: FindByTags must find the resource by its ownership tags", out.ID, out.Action, id, ensure.ActionAdopted))
	}
	return errors.Join(append(errs, wantCount(f, 1, "after the adoption"), wantPersisted(moved, key(r), id))...)
}

func crashBeforeRecord[S, O any](lag bool) func(context.Context, ResourceUnderTest[S, O], CloudFixture[S, O]) error {
	return func(ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
		if lag {
			if err := f.LagSearch(); err != nil {
				return fmt.Errorf("cannot lag the search: %w", err)
			}
		}
		tr := scopetest.NewTracker(scenarioOwnershipKey)
		tr.FailNextPatch(errCrash)
		if _, err := ensureOnce(ctx, tr, r, f.Resource); err == nil {
			return errors.New("ensure succeeded although its checkpoint failed: want an error")
		}
		if err := wantCount(f, 1, "after the first attempt"); err != nil {
			return err
		}
		restarted := tr.Restart()
		out, err := ensureOnce(ctx, restarted, r, f.Resource)
		if err != nil {
			return fmt.Errorf("cannot ensure after the restart: %w", err)
		}
		return errors.Join(wantCount(f, 1, "after the restart (a duplicate was created)"), wantPersisted(restarted, key(r), out.ID))
	}
}

func lostCreateResponse[S, O any](lag bool) func(context.Context, ResourceUnderTest[S, O], CloudFixture[S, O]) error {
	return func(ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
		if lag {
			if err := f.LagSearch(); err != nil {
				return fmt.Errorf("cannot lag the search: %w", err)
			}
		}
		res := f.Resource
		if f.FailNextCreateAfterChange != nil {
			if err := f.FailNextCreateAfterChange(); err != nil {
				return fmt.Errorf("cannot inject the fault: %w", err)
			}
		} else {
			res = wrap(res, ensure.Resource[S, O](&lostResponse[S, O]{Resource: res, armed: true}), nil)
		}
		tr := scopetest.NewTracker(scenarioOwnershipKey)
		_, err := ensureOnce(ctx, tr, r, res)
		switch c := classOf(err); {
		case err == nil:
			return errors.New("ensure succeeded although the create response was lost: want an error that is retried")
		case !retried(c):
			return fmt.Errorf("ensure after a lost create response returned %w, of class %s, want an error that is retried (Transient or Throttled)", err, c)
		}
		if err := wantCount(f, 1, "after the lost response"); err != nil {
			return err
		}
		out, err := ensureOnce(ctx, tr, r, res)
		if err != nil {
			return fmt.Errorf("retry of Ensure failed: %w", err)
		}
		return errors.Join(wantCount(f, 1, "after the retry (a duplicate was created)"), wantPersisted(tr, key(r), out.ID))
	}
}

func outOfBandDeletion[S, O any](ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
	tr, id, err := created(ctx, r, f)
	if err != nil {
		return err
	}
	if err := f.DeleteOutOfBand(id); err != nil {
		return fmt.Errorf("cannot delete %q out of band: %w", id, err)
	}
	if _, exists, err := f.Resource.Get(ctx, id); err != nil || exists {
		return fmt.Errorf("Get of the deleted resource %q returned (found %v, %w), want (false, nil): a resource that is gone is not an error", id, exists, err)
	}
	out, err := ensureOnce(ctx, tr, r, f.Resource)
	if r.OutOfBandDelete == ReportTerminal {
		if classOf(err) != reconcile.ClassTerminal {
			return fmt.Errorf("ensure after an out-of-band deletion returned (ID %q, action %q, %s), want a terminal error", out.ID, out.Action, errText(err))
		}
		return wantCount(f, 0, "after the terminal error")
	}
	if err != nil {
		return fmt.Errorf("cannot ensure after an out-of-band deletion: %w (set OutOfBandDelete: ReportTerminal if the cloud cannot reuse the token)", err)
	}
	var errs []error
	if out.ID == id || out.Action != ensure.ActionCreated {
		errs = append(errs, fmt.Errorf("ensure after an out-of-band deletion returned ID %q and action %q, want a new ID and action %q", out.ID, out.Action, ensure.ActionCreated))
	}
	return errors.Join(append(errs, wantCount(f, 1, "after the recreation"), wantPersisted(tr, key(r), out.ID))...)
}

// deleted runs EnsureDeleted until done, a few times at most (cloud deletes may be asynchronous).
func deleted[S, O any](ctx context.Context, tr *scopetest.Tracker, r ResourceUnderTest[S, O], res ensure.Resource[S, O]) error {
	const attempts = 10
	for range attempts {
		res, err := ensure.Deleted(ctx, tr, key(r), res, r.Options...)
		if err != nil {
			return fmt.Errorf("EnsureDeleted failed: %w", err)
		}
		if res.Done {
			return nil
		}
		if res.RequeueAfter <= 0 || res.Reason == "" {
			return fmt.Errorf("EnsureDeleted returned a result that is not done without a reason and a requeue: %+v", res)
		}
	}
	return fmt.Errorf("EnsureDeleted not done after %d attempts", attempts)
}

func deleteIdempotent[S, O any](ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
	tr, id, err := created(ctx, r, f)
	if err != nil {
		return err
	}
	if err := deleted(ctx, tr, r, f.Resource); err != nil {
		return err
	}
	var errs []error
	if got, ok := tr.ResourceID(key(r)); ok {
		errs = append(errs, fmt.Errorf("the tracker still holds %q after the delete, want it forgotten", got))
	}
	errs = append(errs, wantCount(f, 0, "after EnsureDeleted"))
	if err := deleted(ctx, tr, r, f.Resource); err != nil {
		errs = append(errs, fmt.Errorf("second delete: %w", err))
	}
	if err := f.Resource.Delete(ctx, id); err != nil {
		errs = append(errs, fmt.Errorf("Delete of %q, already gone, returned %w: NotFound must be a success", id, err))
	}
	if err := deleted(ctx, scopetest.NewTracker(""), r, f.Resource); err != nil {
		errs = append(errs, fmt.Errorf("delete before any ownership key: %w", err))
	}
	return errors.Join(errs...)
}

func deleteUntracked[S, O any](ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	tr.FailNextPatch(errCrash)
	_, _ = ensureOnce(ctx, tr, r, f.Resource)
	if err := wantCount(f, 1, "after a create whose ID was not persisted"); err != nil {
		return err
	}
	if err := deleted(ctx, tr.Restart(), r, f.Resource); err != nil {
		return err
	}
	return wantCount(f, 0, "after EnsureDeleted of a resource never recorded (leaked)")
}

func rejectsInvalid[S, O any](ctx context.Context, r ResourceUnderTest[S, O], f CloudFixture[S, O]) error {
	res, cc := counted(f.Resource, nil)
	_, err := ensure.Exists(ctx, scopetest.NewTracker(scenarioOwnershipKey), key(r), res, ensure.Given(r.InvalidSpec), r.Options...)
	var errs []error
	if c := reconcile.Classify(reconcile.OpReconcile, step.Result{}, err); c.Class != reconcile.ClassTerminal || c.Reason != conditions.ReasonInvalidParameters {
		errs = append(errs, fmt.Errorf("Ensure(InvalidSpec) returned %s, want a terminal %s error: Validate must reject it", errText(err), conditions.ReasonInvalidParameters))
	}
	if len(cc.calls) > 0 {
		errs = append(errs, fmt.Errorf("Ensure(InvalidSpec) called the cloud: %q, want no call", cc.calls))
	}
	return errors.Join(append(errs, wantCount(f, 0, "after Ensure(InvalidSpec)"))...)
}

// errText describes an error that may be nil, for a message that is not about the error itself.
func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return "error: " + err.Error()
}

// classOf returns the class the reconcilers give err, returned by a step (reconcile.Classify).
func classOf(err error) reconcile.Class {
	return reconcile.Classify(reconcile.OpReconcile, step.Result{}, err).Class
}

// retried reports whether the reconcilers try a step of class c again by themselves: after a backoff
// (ClassTransient) or the cloud's hint (ClassThrottled).
func retried(c reconcile.Class) bool {
	return c == reconcile.ClassTransient || c == reconcile.ClassThrottled
}
