package ensuretest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

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
	// Count returns how many resources of the kind under test exist in the fixture's cloud, those that an
	// operation is still creating included. Required.
	Count func() int
	// DeleteOutOfBand deletes the resource id without going through Resource. Required.
	DeleteOutOfBand func(id string) error
	// FailNextCreateAfterChange makes the cloud's next create succeed and then return an error (the
	// response is lost). Optional: without it the scenarios wrap Resource.Create to the same effect.
	FailNextCreateAfterChange func() error
	// LagSearch makes the resources created from now on invisible to the next search by tags (an
	// eventually consistent tag index). Optional: with it, the crash and lost-response scenarios also run
	// with a lagging search, where only the idempotency token, or on a cloud without one the wait of
	// ensure.Exists (ensure.Guarantees), prevents a duplicate. A fixture whose search always lags may set a
	// function that does nothing.
	LagSearch func() error
	// Drift changes the resource id behind the Resource's back, so that it differs from ValidSpec in a
	// field that can be updated in place. Required when Resource implements ensure.Updater: the update
	// scenarios run with it.
	Drift func(id string) error
	// MakePending puts the resource id into a transitional state (creating, updating) that the Resource's
	// ensure.PendingReporter reports. Optional: with it, the pending scenario runs, and the Resource must
	// implement ensure.PendingReporter.
	MakePending func(id string) error
	// Advance moves the clock of the fixture's cloud (its search lag, its operations) forward by d. Optional:
	// with it the scenarios run on a fake clock that ensure reads too (ensure.WithClock) and that moves only
	// by Advance, by what each step asks to wait. Without it a Resource that declares guarantees
	// (ensure.Declarer) is reconciled in real time, again at most 10 ms after each step, so the search lag
	// it declares and its operations must be short; one that declares none (the zero ensure.Guarantees, as a
	// Resource written before they existed) runs ensure on a fake clock and its cloud in real time, which
	// suits a cloud whose search does not lag in time, as the scenarios assumed before.
	Advance func(d time.Duration)
	// AsyncCreate says that the Resource's Create returns ensure.Accepted: the cloud runs creates as
	// operations, which the Resource reads as an ensure.OperationPoller. With it the asynchronous scenarios
	// run.
	AsyncCreate bool
	// FailNextOperation makes the cloud's next create operation fail: it ends without making the resource,
	// and PollOperation then returns an error wrapping ensure.ErrOperationFailed. Optional, with AsyncCreate:
	// with it, the failed-operation scenario runs.
	FailNextOperation func() error
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
	// RequireAll makes RunScenarios fail when the fixture cannot run every scenario that applies to its
	// Resource (a CloudFixture hook such as LagSearch or MakePending is nil), naming what is missing; the
	// update scenarios apply only to an ensure.Updater, the asynchronous ones only to a fixture with AsyncCreate. Without it, RunScenarios runs the scenarios the fixture can run and logs the others.
	RequireAll bool
}

// scenarioOwnershipKey is the ownership key of the scenarios' trackers.
const scenarioOwnershipKey = "ensuretest-owner"

// errCrash is the error of a checkpoint that never happened.
var errCrash = errors.New("ensuretest: the controller died before the outcome of the create call was persisted")

// errLostResponse is the error of a create whose response was lost.
var errLostResponse = errors.New("ensuretest: the create response was lost after the resource was created")

// ensureScenario is one standard scenario: it returns nil when the resource behaves.
type ensureScenario[S, O any] struct {
	name string
	// applies reports whether the scenario is about the fixture's cloud (its asynchronous creates, the
	// guarantees its Resource declares); nil for a scenario of every cloud. A scenario that does not apply
	// is reported as not run, and never fails RequireAll.
	applies func(CloudFixture[S, O]) bool
	// appliesTo names what applies checks, for the report of a scenario that is not run.
	appliesTo string
	// needs reports whether a fixture has what the scenario needs (a hook, an optional interface of the
	// Resource); nil for a scenario every fixture runs.
	needs func(CloudFixture[S, O]) bool
	// requires names what needs checks, for the report of a scenario that is not run.
	requires string
	run      func(ctx context.Context, h *harness[S, O]) error
}

// gap returns what fixture f lacks to run sc, empty when it can run it; hook is true when f lacks a hook or
// an interface (needs), false when sc does not apply to f's cloud.
func (sc ensureScenario[S, O]) gap(f CloudFixture[S, O]) (what string, hook bool) {
	switch {
	case sc.applies != nil && !sc.applies(f):
		return sc.appliesTo, false
	case sc.needs != nil && !sc.needs(f):
		return sc.requires, true
	}
	return "", false
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
// ensure.Exists must pass, each on a fresh fixture from r.New. Each scenario reconciles as a controller does:
// it calls Exists or Deleted again while the step is not done, after the step's RequeueAfter (on the
// fixture's clock, CloudFixture.Advance), and after the cloud's hint while the cloud throttles
// (step.Throttled), and fails when a step is still not done after 100 reconciles (a resource that is recorded
// and that its ensure.PendingReporter reports pending counts as done). A crash is the failure of the first
// patch after the create call, which would have persisted its outcome (the resource's ID, or the operation of
// an asynchronous create).
//
//   - CreatesWhenAbsent: Validate accepts ValidSpec; Ensure creates one resource with the ownership tags and
//     persists its ID; FindByTags lists it within the search lag that the Resource declares
//     (ensure.Guarantees: at once with ImmediateSearch).
//   - FindsTrackedResource: a second Ensure finds the tracked ID, creates nothing and writes nothing.
//   - AdoptsAfterStatusLoss: once the search lists the resource, clusterctl move (status lost, ownership key
//     and notes kept) and Ensure adopts the resource by its tags.
//   - NoDuplicateAfterCrashBeforeRecord: the controller dies after the create call, before its outcome is
//     persisted; after the restart Ensure finds the same resource.
//   - NoDuplicateAfterLostCreateResponse: the create succeeds but returns an error; the error is not
//     terminal, so it is retried, and the retry finds the same resource.
//   - HandlesOutOfBandDeletion: the tracked resource is deleted behind the provider's back; Ensure recreates
//     it or reports a terminal error, as r.OutOfBandDelete says, and never returns the stale ID.
//   - DeleteIsIdempotent: EnsureDeleted removes the resource and forgets its ID; deleting again, deleting an
//     ID already gone (NotFound) and deleting before any ownership key are all successes.
//   - DeleteRemovesUntrackedResource: a resource whose ID was never persisted (the controller died after the
//     create call) is deleted by its tags.
//   - RejectsInvalidParameters: Ensure(InvalidSpec) fails with a terminal InvalidParameters error before
//     any cloud call.
//   - LazySpecComputedOnlyWhenNeeded: a reconcile.Lazy spec is computed at most once per Ensure that creates,
//     and not at all when the resource is found (once, for the comparison, when the Resource is a
//     ensure.Updater).
//
// With CloudFixture.LagSearch, the tag search misses the new resource, so only the idempotency token, or on a
// cloud without one the wait of Exists, prevents a duplicate:
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
// With CloudFixture.AsyncCreate (the Resource's Create returns ensure.Accepted):
//
//   - AsyncCreateHoldsNoWorker: the first Ensure returns at once, not done, with a requeue and the operation
//     noted on the tracker (scope.PendingTracker) and persisted, without waiting for the operation; the
//     following reconciles record the resource.
//   - NoDuplicateAfterCrashBeforeRecordOfOperation: the controller dies after the operation ended, before
//     the resource's ID is persisted; after the restart Ensure records the same resource.
//   - NoLeakWhenDeletedDuringAsyncCreate: the object is deleted while the create runs, and the controller
//     is down meanwhile, once after the operation was noted and once right after the create call, before
//     it was; EnsureDeleted until done leaves no resource.
//   - CreatesAgainAfterFailedOperation (with CloudFixture.FailNextOperation): a create operation that fails
//     is created again; one resource is left.
//
// For the guarantees the Resource declares (ensure.Declarer):
//
//   - NoSecondCreateWhileSearchLags, for a cloud whose creates are not idempotent (declared or undeclared)
//     and whose search is not immediate: after a crash following the create call, Exists waits until the
//     search lists the resource and adopts it, and never calls Create again.
//   - AdoptsThroughIdempotencyAfterCrash, for a cloud with idempotent creates (by token or by name): the
//     recovery after a crash following the create call is reported as ensure.ActionAdopted, whether the
//     search or the token found the resource.
//
// RunScenarios calls r.New once more, with t, to learn which of these the fixture can run. A scenario it
// cannot run gets no subtest, so it reports neither PASS nor SKIP: RunScenarios logs once which scenarios
// were not run and what each needs, or, with r.RequireAll, fails t naming those that need a hook or an
// interface (a scenario about another kind of cloud, such as the asynchronous ones for a cloud that creates
// synchronously, is only logged). Every fixture from r.New must have the same optional hooks; a subtest
// whose fixture lacks one that the first fixture had fails.
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
	run, hooks, others := plan(all, first)
	switch {
	case r.RequireAll && len(hooks) > 0:
		t.Errorf("cannot run %d of the %d ensure scenarios, and ResourceUnderTest.RequireAll is set:\n%s", len(hooks), len(all), notRunReport(hooks, first))
	case !r.RequireAll:
		others = slices.Concat(hooks, others)
	}
	if len(others) > 0 {
		t.Logf("%d of the %d ensure scenarios were not run (with ResourceUnderTest.RequireAll, those that need a hook fail instead):\n%s",
			len(others), len(all), notRunReport(others, first))
	}
	for _, sc := range run {
		t.Run(sc.name, func(t testing.TB) {
			f := r.New(t)
			if err := validateFixture(f); err != nil {
				t.Fatal(err)
			}
			if what, _ := sc.gap(f); what != "" {
				t.Fatalf("cannot run the scenario: it needs %s, which the first fixture from ResourceUnderTest.New had and this one has not", what)
			}
			if err := sc.run(t.Context(), newHarness(r, f)); err != nil {
				t.Error(err)
			}
		})
	}
}

// plan splits scenarios into those fixture f can run, those it cannot for a missing hook or interface, and
// those that do not apply to its cloud.
func plan[S, O any](scenarios []ensureScenario[S, O], f CloudFixture[S, O]) (run, hooks, others []ensureScenario[S, O]) {
	for _, sc := range scenarios {
		switch what, hook := sc.gap(f); {
		case what == "":
			run = append(run, sc)
		case hook:
			hooks = append(hooks, sc)
		default:
			others = append(others, sc)
		}
	}
	return run, hooks, others
}

// notRunReport lists the scenarios not run, one line each with what it needs.
func notRunReport[S, O any](notRun []ensureScenario[S, O], f CloudFixture[S, O]) string {
	lines := make([]string, 0, len(notRun))
	for _, sc := range notRun {
		what, _ := sc.gap(f)
		lines = append(lines, fmt.Sprintf("\tnot run: %s (needs %s)", sc.name, what))
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
	async := func(f CloudFixture[S, O]) bool { return f.AsyncCreate }
	failOp := func(f CloudFixture[S, O]) bool { return f.FailNextOperation != nil }
	tokenless := func(f CloudFixture[S, O]) bool {
		g := guarantees(f.Resource)
		return !idempotent(g) && !g.ImmediateSearch
	}
	idem := func(f CloudFixture[S, O]) bool { return idempotent(guarantees(f.Resource)) }
	const (
		needsLag = "CloudFixture.LagSearch"
		// A Resource that updates nothing in place has no update to test: the scenarios do not apply to it.
		appliesUpdater = "a Resource that implements ensure.Updater"
		needsAsync     = "an asynchronous create: CloudFixture.AsyncCreate"
	)
	return []ensureScenario[S, O]{
		{name: "CreatesWhenAbsent", run: createsWhenAbsent[S, O]},
		{name: "FindsTrackedResource", run: findsTracked[S, O]},
		{name: "AdoptsAfterStatusLoss", run: adoptsAfterStatusLoss[S, O]},
		{name: "NoDuplicateAfterCrashBeforeRecord", run: crashBeforeRecord[S, O](false)},
		{name: "NoDuplicateAfterCrashBeforeRecordWithSearchLag", needs: lag, requires: needsLag, run: crashBeforeRecord[S, O](true)},
		{name: "NoDuplicateAfterLostCreateResponse", run: lostCreateResponse[S, O](false)},
		{name: "NoDuplicateAfterLostCreateResponseWithSearchLag", needs: lag, requires: needsLag, run: lostCreateResponse[S, O](true)},
		{name: "HandlesOutOfBandDeletion", run: outOfBandDeletion[S, O]},
		{name: "DeleteIsIdempotent", run: deleteIdempotent[S, O]},
		{name: "DeleteRemovesUntrackedResource", run: deleteUntracked[S, O]},
		{name: "RejectsInvalidParameters", run: rejectsInvalid[S, O]},
		{name: "LazySpecComputedOnlyWhenNeeded", run: lazySpec[S, O]},
		{name: "NoUpdateWhenUpToDate", applies: updater, appliesTo: appliesUpdater, run: noUpdateWhenUpToDate[S, O]},
		{name: "UpdatesDriftOnce", applies: updater, appliesTo: appliesUpdater, run: updatesDriftOnce[S, O]},
		{name: "UpdateFailureIsRetried", applies: updater, appliesTo: appliesUpdater, run: updateFailureIsRetried[S, O]},
		{name: "OutOfBandChangeDuringUpdate", applies: updater, appliesTo: appliesUpdater, run: changeDuringUpdate[S, O]},
		{name: "WaitsWhilePending", needs: pending, requires: "CloudFixture.MakePending", run: waitsWhilePending[S, O]},
		{name: "AsyncCreateHoldsNoWorker", applies: async, appliesTo: needsAsync, run: asyncHoldsNoWorker[S, O]},
		{name: "NoDuplicateAfterCrashBeforeRecordOfOperation", applies: async, appliesTo: needsAsync, run: crashAfterOperationEnded[S, O]},
		{name: "NoLeakWhenDeletedDuringAsyncCreate", applies: async, appliesTo: needsAsync, run: deletedDuringCreate[S, O]},
		{name: "CreatesAgainAfterFailedOperation", applies: async, appliesTo: needsAsync, needs: failOp, requires: "CloudFixture.FailNextOperation", run: failedOperation[S, O]},
		{name: "NoSecondCreateWhileSearchLags", applies: tokenless, run: noSecondCreateWhileSearchLags[S, O],
			appliesTo: "a Resource whose ensure.Guarantees declare neither idempotent creates nor an immediate search"},
		{name: "AdoptsThroughIdempotencyAfterCrash", applies: idem, run: adoptsThroughIdempotency[S, O],
			appliesTo: "a Resource whose ensure.Guarantees declare idempotent creates (IdempotentByToken, IdempotentByName)"},
	}
}

func key[S, O any](r ResourceUnderTest[S, O]) string {
	if r.Key == "" {
		return "resource"
	}
	return r.Key
}

// created reconciles Ensure on a fresh tracker until done and checks that it created one resource.
func (h *harness[S, O]) created(ctx context.Context) (*scopetest.Tracker, string, error) {
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	c, err := h.ensureUntilDone(ctx, tr, h.f.Resource)
	if err != nil {
		return nil, "", fmt.Errorf("cannot ensure a new resource: %w", err)
	}
	if c.recorded != ensure.ActionCreated || c.out.ID == "" {
		return nil, "", fmt.Errorf("ensure of a new resource recorded ID %q with action %q, want an ID and action %q", c.out.ID, c.recorded, ensure.ActionCreated)
	}
	return tr, c.out.ID, nil
}

// crash reconciles Ensure on res, wrapped by crashAfterCreate or crashAfterOperation, until the controller
// dies.
func (h *harness[S, O]) crash(ctx context.Context, tr *scopetest.Tracker, res ensure.Resource[S, O]) error {
	_, err := h.ensureUntilDone(ctx, tr, res)
	switch {
	case errors.Is(err, errCrash):
		return nil
	case err == nil:
		return errors.New("ensure succeeded although the patch after its create failed: want an error")
	}
	return fmt.Errorf("ensure failed before the create call: %w", err)
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

func createsWhenAbsent[S, O any](ctx context.Context, h *harness[S, O]) error {
	if err := h.f.Resource.Validate(h.r.ValidSpec); err != nil {
		return fmt.Errorf("Validate rejected ValidSpec: %w", err)
	}
	since := h.clock.Now()
	tr, id, err := h.created(ctx)
	if err != nil {
		return err
	}
	return errors.Join(wantCount(h.f, 1, "after Ensure"), wantPersisted(tr, h.key(), id), h.listed(ctx, id, since))
}

func findsTracked[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, id, err := h.created(ctx)
	if err != nil {
		return err
	}
	writes := tr.Writes()
	out, err := h.exists(ctx, tr, h.f.Resource, ensure.Given(h.r.ValidSpec))
	if err != nil {
		return fmt.Errorf("second Ensure failed: %w", err)
	}
	var errs []error
	if out.ID != id || out.Action != ensure.ActionFound || h.f.Resource.ID(out.Observed) != id {
		errs = append(errs, fmt.Errorf("second Ensure returned ID %q, action %q, observed ID %q, want ID %q and action %q: Get must return the tracked resource",
			out.ID, out.Action, h.f.Resource.ID(out.Observed), id, ensure.ActionFound))
	}
	if tr.Writes() != writes {
		errs = append(errs, fmt.Errorf("second Ensure wrote the object %d more times, want none", tr.Writes()-writes))
	}
	return errors.Join(append(errs, wantCount(h.f, 1, "after the second Ensure"))...)
}

func adoptsAfterStatusLoss[S, O any](ctx context.Context, h *harness[S, O]) error {
	since := h.clock.Now()
	tr, id, err := h.created(ctx)
	if err != nil {
		return err
	}
	if err := h.listed(ctx, id, since); err != nil {
		return fmt.Errorf("before the move: %w", err)
	}
	moved := tr.Moved()
	c, err := h.ensureUntilDone(ctx, moved, h.f.Resource)
	if err != nil {
		return fmt.Errorf("cannot ensure after the status was lost: %w", err)
	}
	var errs []error
	if c.out.ID != id || c.recorded != ensure.ActionAdopted {
		errs = append(errs, fmt.Errorf("ensure after the status was lost recorded ID %q with action %q, want ID %q and action %q: FindByTags must find the resource by its ownership tags",
			c.out.ID, c.recorded, id, ensure.ActionAdopted))
	}
	return errors.Join(append(errs, wantCount(h.f, 1, "after the adoption"), wantPersisted(moved, h.key(), id))...)
}

// lagSearch calls the fixture's LagSearch.
func (h *harness[S, O]) lagSearch() error {
	if err := h.f.LagSearch(); err != nil {
		return fmt.Errorf("cannot lag the search: %w", err)
	}
	return nil
}

// crashAndRestart lags the search when lag is set and the fixture can, lets the controller die after the create
// call, and returns the tracker of the restarted controller.
func (h *harness[S, O]) crashAndRestart(ctx context.Context, lag bool) (*scopetest.Tracker, error) {
	if lag && h.f.LagSearch != nil {
		if err := h.lagSearch(); err != nil {
			return nil, err
		}
	}
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	if err := h.crash(ctx, tr, crashAfterCreate(h.f.Resource, tr)); err != nil {
		return nil, err
	}
	return tr.Restart(), wantCount(h.f, 1, "after the create call")
}

// recovered reconciles Ensure on res and the restarted controller's tracker until done, and checks that one
// resource is left, recorded and persisted, and what checks say of the reconciles.
func (h *harness[S, O]) recovered(ctx context.Context, restarted *scopetest.Tracker, res ensure.Resource[S, O], checks ...func(converged[O]) error) error {
	c, err := h.ensureUntilDone(ctx, restarted, res)
	if err != nil {
		return fmt.Errorf("cannot ensure after the restart: %w", err)
	}
	errs := []error{wantCount(h.f, 1, "after the restart (a duplicate was created)"), wantPersisted(restarted, h.key(), c.out.ID)}
	for _, check := range checks {
		errs = append(errs, check(c))
	}
	return errors.Join(errs...)
}

func crashBeforeRecord[S, O any](lag bool) func(context.Context, *harness[S, O]) error {
	return func(ctx context.Context, h *harness[S, O]) error {
		restarted, err := h.crashAndRestart(ctx, lag)
		if err != nil {
			return err
		}
		return h.recovered(ctx, restarted, h.f.Resource)
	}
}

func lostCreateResponse[S, O any](lag bool) func(context.Context, *harness[S, O]) error {
	return func(ctx context.Context, h *harness[S, O]) error {
		if lag {
			if err := h.lagSearch(); err != nil {
				return err
			}
		}
		res := h.f.Resource
		if h.f.FailNextCreateAfterChange != nil {
			if err := h.f.FailNextCreateAfterChange(); err != nil {
				return fmt.Errorf("cannot inject the fault: %w", err)
			}
		} else {
			res = wrap(res, ensure.Resource[S, O](&lostResponse[S, O]{Resource: res, armed: true}), nil)
		}
		tr := scopetest.NewTracker(scenarioOwnershipKey)
		_, err := h.ensureUntilDone(ctx, tr, res)
		switch c := classOf(err); {
		case err == nil:
			return errors.New("ensure succeeded although the create response was lost: want an error that is retried")
		case errors.Is(err, errNotDone):
			return err
		case !retried(c):
			return fmt.Errorf("ensure after a lost create response returned %w, of class %s, want an error that is retried (Transient or Throttled)", err, c)
		}
		if err := wantCount(h.f, 1, "after the lost response"); err != nil {
			return err
		}
		c, err := h.ensureUntilDone(ctx, tr, res)
		if err != nil {
			return fmt.Errorf("retry of Ensure failed: %w", err)
		}
		return errors.Join(wantCount(h.f, 1, "after the retry (a duplicate was created)"), wantPersisted(tr, h.key(), c.out.ID))
	}
}

func outOfBandDeletion[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, id, err := h.created(ctx)
	if err != nil {
		return err
	}
	if err := h.f.DeleteOutOfBand(id); err != nil {
		return fmt.Errorf("cannot delete %q out of band: %w", id, err)
	}
	var exists bool
	err = h.unthrottled(func() (err error) {
		_, exists, err = h.f.Resource.Get(ctx, id)
		return err
	})
	if err != nil || exists {
		return fmt.Errorf("Get of the deleted resource %q returned (found %v, %w), want (false, nil): a resource that is gone is not an error", id, exists, err)
	}
	c, err := h.ensureUntilDone(ctx, tr, h.f.Resource)
	if h.r.OutOfBandDelete == ReportTerminal {
		if classOf(err) != reconcile.ClassTerminal {
			return fmt.Errorf("ensure after an out-of-band deletion returned (ID %q, action %q, %s), want a terminal error", c.out.ID, c.out.Action, errText(err))
		}
		return wantCount(h.f, 0, "after the terminal error")
	}
	if err != nil {
		return fmt.Errorf("cannot ensure after an out-of-band deletion: %w (set OutOfBandDelete: ReportTerminal if the cloud cannot reuse the token)", err)
	}
	var errs []error
	if c.out.ID == id || c.recorded != ensure.ActionCreated {
		errs = append(errs, fmt.Errorf("ensure after an out-of-band deletion recorded ID %q with action %q, want a new ID and action %q", c.out.ID, c.recorded, ensure.ActionCreated))
	}
	return errors.Join(append(errs, wantCount(h.f, 1, "after the recreation"), wantPersisted(tr, h.key(), c.out.ID))...)
}

func deleteIdempotent[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr, id, err := h.created(ctx)
	if err != nil {
		return err
	}
	if err := h.deletedUntilDone(ctx, tr, h.f.Resource); err != nil {
		return err
	}
	var errs []error
	if got, ok := tr.ResourceID(h.key()); ok {
		errs = append(errs, fmt.Errorf("the tracker still holds %q after the delete, want it forgotten", got))
	}
	errs = append(errs, wantCount(h.f, 0, "after EnsureDeleted"))
	if err := h.deletedUntilDone(ctx, tr, h.f.Resource); err != nil {
		errs = append(errs, fmt.Errorf("second delete: %w", err))
	}
	if err := h.unthrottled(func() error { return h.f.Resource.Delete(ctx, id) }); err != nil {
		errs = append(errs, fmt.Errorf("Delete of %q, already gone, returned %w: NotFound must be a success", id, err))
	}
	if err := h.deletedUntilDone(ctx, scopetest.NewTracker(""), h.f.Resource); err != nil {
		errs = append(errs, fmt.Errorf("delete before any ownership key: %w", err))
	}
	return errors.Join(errs...)
}

func deleteUntracked[S, O any](ctx context.Context, h *harness[S, O]) error {
	tr := scopetest.NewTracker(scenarioOwnershipKey)
	if err := h.crash(ctx, tr, crashAfterCreate(h.f.Resource, tr)); err != nil {
		return err
	}
	if err := wantCount(h.f, 1, "after a create whose ID was not persisted"); err != nil {
		return err
	}
	if err := h.deletedUntilDone(ctx, tr.Restart(), h.f.Resource); err != nil {
		return err
	}
	return wantCount(h.f, 0, "after EnsureDeleted of a resource never recorded (leaked)")
}

func rejectsInvalid[S, O any](ctx context.Context, h *harness[S, O]) error {
	res, cc := counted(h.f.Resource, nil)
	_, err := ensure.Exists(ctx, scopetest.NewTracker(scenarioOwnershipKey), h.key(), res, ensure.Given(h.r.InvalidSpec), h.opts...)
	var errs []error
	if c := reconcile.Classify(reconcile.OpReconcile, step.Result{}, err); c.Class != reconcile.ClassTerminal || c.Reason != conditions.ReasonInvalidParameters {
		errs = append(errs, fmt.Errorf("Ensure(InvalidSpec) returned %s, want a terminal %s error: Validate must reject it", errText(err), conditions.ReasonInvalidParameters))
	}
	if len(cc.calls) > 0 {
		errs = append(errs, fmt.Errorf("Ensure(InvalidSpec) called the cloud: %q, want no call", cc.calls))
	}
	return errors.Join(append(errs, wantCount(h.f, 0, "after Ensure(InvalidSpec)"))...)
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
