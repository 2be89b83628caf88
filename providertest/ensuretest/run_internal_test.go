package ensuretest

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// fakeT is a tester that records what RunScenarios reports instead of failing the real test. The embedded
// *testing.T gives it the real test's Context, Cleanup, Helper and TempDir.
type fakeT struct {
	*testing.T
	name     string
	logs     []string
	errs     []string
	failed   bool
	subtests []*fakeT
}

// runFake runs fn on a fake of t, in a goroutine of its own so that Fatal and FailNow can end it as they end
// a real test, and returns the fake.
func runFake(t *testing.T, fn func(t tester)) *fakeT {
	f := &fakeT{T: t, name: t.Name()}
	f.do(fn)
	return f
}

func (f *fakeT) do(fn func(t tester)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
}

func (f *fakeT) Name() string    { return f.name }
func (f *fakeT) Log(args ...any) { f.logs = append(f.logs, fmt.Sprint(args...)) }
func (f *fakeT) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Error(args ...any) { f.errs, f.failed = append(f.errs, fmt.Sprint(args...)), true }
func (f *fakeT) Errorf(format string, args ...any) {
	f.errs, f.failed = append(f.errs, fmt.Sprintf(format, args...)), true
}
func (f *fakeT) Fail()                             { f.failed = true }
func (f *fakeT) Failed() bool                      { return f.failed }
func (f *fakeT) FailNow()                          { f.failed = true; runtime.Goexit() }
func (f *fakeT) Fatal(args ...any)                 { f.Error(args...); runtime.Goexit() }
func (f *fakeT) Fatalf(format string, args ...any) { f.Errorf(format, args...); runtime.Goexit() }

// Run runs fn as a subtest of f, on a fake of its own.
func (f *fakeT) Run(name string, fn func(t testing.TB)) bool {
	sub := &fakeT{T: f.T, name: f.name + "/" + name}
	f.subtests = append(f.subtests, sub)
	sub.do(func(t tester) { fn(t) })
	f.failed = f.failed || sub.failed
	return !sub.failed
}

// ran returns the names of f's subtests.
func (f *fakeT) ran() []string {
	out := make([]string, 0, len(f.subtests))
	for _, sub := range f.subtests {
		out = append(out, strings.TrimPrefix(sub.name, f.name+"/"))
	}
	return out
}

// allNames returns the names of all scenarios but those in notRun.
func allNames(notRun ...[]string) []string {
	skip := slices.Concat(notRun...)
	var out []string
	for _, sc := range ensureScenarios[cloud.NetworkSpec, *cloud.Network]() {
		if !slices.Contains(skip, sc.name) {
			out = append(out, sc.name)
		}
	}
	return out
}

// countingNew counts the fixtures r.New makes.
func countingNew[S, O any](r *ResourceUnderTest[S, O]) *int {
	n, next := 0, r.New
	r.New = func(t testing.TB) CloudFixture[S, O] { n++; return next(t) }
	return &n
}

func TestRunScenariosRunsOnlyWhatTheFixtureCanAndLogsTheRest(t *testing.T) {
	// No LagSearch, no MakePending, networks is not a ensure.Updater, memcloud creates synchronously, and
	// networks declares idempotent creates.
	r := networkUnderTest(networks{}, false, ReportTerminal)
	made := countingNew(&r)
	f := runFake(t, func(t tester) { runScenarios(t, r) })

	assert.False(t, f.failed, "errors: %q", f.errs)
	assert.Equal(t, allNames(lagging, updates, pending, asynchronous, tokenless), f.ran(), "a scenario the fixture cannot run must get no subtest")
	assert.Equal(t, len(f.subtests)+1, *made, "one fixture to learn the hooks, one per scenario run")
	require.Len(t, f.logs, 1, "the scenarios not run are reported once")
	log := f.logs[0]
	assert.Contains(t, log, "12 of the 23 ensure scenarios were not run")
	for _, name := range lagging {
		assert.Contains(t, log, "not run: "+name+" (needs CloudFixture.LagSearch)")
	}
	for _, name := range updates {
		assert.Contains(t, log, "not run: "+name+" (needs a Resource that implements ensure.Updater)")
	}
	assert.Contains(t, log, "not run: WaitsWhilePending (needs CloudFixture.MakePending)")
	for _, name := range asynchronous {
		assert.Contains(t, log, "not run: "+name+" (needs an asynchronous create: CloudFixture.AsyncCreate)")
	}
	assert.Contains(t, log, "not run: NoSecondCreateWhileSearchLags (needs a Resource whose ensure.Guarantees declare neither idempotent creates nor an immediate search)")
	assert.Equal(t, 12, strings.Count(log, "not run: "))
}

func TestRunScenariosRequireAllFailsNamingWhatIsMissing(t *testing.T) {
	r := networkUnderTest(networks{}, true, ReportTerminal) // LagSearch, but no MakePending and no Updater
	r.RequireAll = true
	f := runFake(t, func(t tester) { runScenarios(t, r) })

	assert.True(t, f.failed)
	require.Len(t, f.errs, 1, "the scenarios not run are reported once")
	msg := f.errs[0]
	assert.Contains(t, msg, "cannot run 1 of the 23 ensure scenarios, and ResourceUnderTest.RequireAll is set")
	assert.Contains(t, msg, "not run: WaitsWhilePending (needs CloudFixture.MakePending)")
	assert.NotContains(t, msg, "ensure.Updater", "a Resource that updates nothing in place has no update scenario to fail")
	assert.NotContains(t, msg, "LagSearch")
	assert.NotContains(t, msg, "asynchronous", "a scenario about another kind of cloud never fails RequireAll")
	// Those are only logged.
	require.Len(t, f.logs, 1)
	assert.Contains(t, f.logs[0], "9 of the 23 ensure scenarios were not run")
	assert.Contains(t, f.logs[0], "not run: UpdatesDriftOnce (needs a Resource that implements ensure.Updater)")
	assert.Contains(t, f.logs[0], "not run: AsyncCreateHoldsNoWorker (needs an asynchronous create: CloudFixture.AsyncCreate)")
	assert.NotContains(t, f.logs[0], "MakePending")
	// The scenarios the fixture can run still run, and pass.
	assert.Equal(t, allNames(updates, pending, asynchronous, tokenless), f.ran())
	for _, sub := range f.subtests {
		assert.False(t, sub.failed, "%s: %q", sub.name, sub.errs)
	}
}

func TestRunScenariosRequireAllPassesWhenEveryScenarioRuns(t *testing.T) {
	r := itemsUnderTest(items{})
	r.OutOfBandDelete = Recreate
	r.RequireAll = true
	next := r.New
	r.New = func(t testing.TB) CloudFixture[itemSpec, *item] {
		f := next(t)
		f.LagSearch = func() error { return nil } // the items cloud's search never lags
		return f
	}
	f := runFake(t, func(t tester) { runScenarios(t, r) })

	assert.False(t, f.failed, "errors: %q", f.errs)
	assert.Equal(t, allNames(asynchronous, idempotency), f.ran(), "every scenario that applies to the items cloud")
	require.Len(t, f.logs, 1, "the scenarios about other clouds are logged")
	assert.Contains(t, f.logs[0], "5 of the 23 ensure scenarios were not run")
}

func TestRunScenariosFailsWhenAFixtureLosesAHook(t *testing.T) {
	r := networkUnderTest(networks{}, true, ReportTerminal)
	made := countingNew(&r)
	next := r.New
	r.New = func(t testing.TB) CloudFixture[cloud.NetworkSpec, *cloud.Network] {
		f := next(t)
		if *made > 1 { // only the first fixture has LagSearch
			f.LagSearch = nil
		}
		return f
	}
	f := runFake(t, func(t tester) { runScenarios(t, r) })

	assert.True(t, f.failed)
	for _, sub := range f.subtests {
		name := strings.TrimPrefix(sub.name, f.name+"/")
		if !slices.Contains(lagging, name) {
			assert.False(t, sub.failed, "%s: %q", name, sub.errs)
			continue
		}
		if assert.True(t, sub.failed, name) && assert.Len(t, sub.errs, 1, name) {
			assert.Contains(t, sub.errs[0], "it needs CloudFixture.LagSearch, which the first fixture from ResourceUnderTest.New had")
		}
	}
}

func TestRunScenariosFailsOnceForABadFixture(t *testing.T) {
	r := networkUnderTest(networks{}, false, ReportTerminal)
	next := r.New
	r.New = func(t testing.TB) CloudFixture[cloud.NetworkSpec, *cloud.Network] {
		f := next(t)
		f.Count = nil
		return f
	}
	f := runFake(t, func(t tester) { runScenarios(t, r) })
	assert.Equal(t, []string{"cannot run the scenario: CloudFixture.Count must not be nil"}, f.errs)
	assert.Empty(t, f.subtests)

	f = runFake(t, func(t tester) { runScenarios(t, ResourceUnderTest[cloud.NetworkSpec, *cloud.Network]{}) })
	assert.Equal(t, []string{"cannot run the ensure scenarios: ResourceUnderTest.New must not be nil"}, f.errs)
}
