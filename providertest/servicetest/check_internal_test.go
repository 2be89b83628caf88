package servicetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// recorder is a providertest.TestingT that records failures.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheckReportsEachMismatch(t *testing.T) {
	const secret = "token-xyz"
	errNotFound := errors.New("not found")
	withCondition := func(msg string) func(*testtypes.FooMachine) {
		return func(m *testtypes.FooMachine) {
			m.Status.Conditions = []metav1.Condition{{Type: "A", Status: "False", Reason: "R", Message: msg}}
		}
	}
	tests := []struct {
		name string
		want Outcome
		res  step.Result
		err  error
		// start edits the object before the "call": the state read from the API server.
		start func(m *testtypes.FooMachine)
		// change edits the object during the "call"; checkpoint then checkpoints it (PatchNow, or
		// PatchSpecNow when specOnly is true), and then changeAfter edits it again.
		change      func(m *testtypes.FooMachine)
		checkpoint  bool
		specOnly    bool
		changeAfter func(m *testtypes.FooMachine)
		failure     string // "" when the outcome matches
	}{
		{name: "all matches", want: Outcome{Result: step.Result{Done: true}}, res: step.Result{Done: true}},
		{name: "class", err: errors.New("boom"), failure: "class is Transient"},
		{name: "class of a result", want: Outcome{Class: reconcile.ClassDone}, res: step.Result{}, failure: "class is InProgress"},
		{name: "not done", want: Outcome{Class: reconcile.ClassInProgress, Reason: "Booting", RequeueAfter: step.DefaultPollInterval,
			Result: step.Result{Reason: "Booting"}}, res: step.Result{Reason: "Booting"}},
		{name: "throttled", want: Outcome{Class: reconcile.ClassThrottled, Reason: conditions.ReasonThrottled, RequeueAfter: 5 * time.Second},
			err: fmt.Errorf("cannot create: %w", step.Throttled(errors.New("429"), 5*time.Second))},
		{name: "throttled is not transient", want: Outcome{Class: reconcile.ClassTransient}, err: step.Throttled(errors.New("429"), 0),
			failure: "class is Throttled"},
		{name: "requeue", want: Outcome{Class: reconcile.ClassThrottled, RequeueAfter: time.Minute}, err: step.Throttled(errors.New("429"), 5*time.Second),
			failure: "requeue after 5s"},
		{name: "terminal", want: Outcome{Class: reconcile.ClassTerminal, Reason: "Quota"}, err: step.Terminal("Quota", errors.New("x"))},
		{name: "terminal reason", want: Outcome{Class: reconcile.ClassTerminal, Reason: "Quota"}, err: step.Terminal("Other", errors.New("x")), failure: `condition reason is "Other"`},
		{name: "controller-runtime terminal", want: Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonTerminalError}, err: crreconcile.TerminalError(errors.New("x"))},
		{name: "error is", want: Outcome{Class: reconcile.ClassTransient, ErrorIs: errNotFound}, err: errors.New("other"), failure: "does not wrap"},
		{name: "error contains", want: Outcome{Class: reconcile.ClassTransient, ErrorContains: "quota"}, err: errors.New("other"), failure: `does not contain "quota"`},
		{name: "result", res: step.Result{Done: true}, failure: "result is"},
		{name: "message contains", want: Outcome{Result: step.Result{Reason: "Booting"}, MessageContains: "vm-7"},
			res: step.Result{Reason: "Booting", Message: "instance vm-7 is booting since 10:02"}},
		{name: "message does not contain", want: Outcome{Result: step.Result{Reason: "Booting"}, MessageContains: "vm-8"},
			res: step.Result{Reason: "Booting", Message: "instance vm-7 is booting"}, failure: `result message "instance vm-7 is booting" does not contain "vm-8"`},
		{name: "message contains, the rest compared", want: Outcome{Result: step.Result{Reason: "Booting"}, MessageContains: "vm-7"},
			res: step.Result{Reason: "Pending", Message: "vm-7"}, failure: "result is"},
		{name: "bootstrap data in the error", want: Outcome{Class: reconcile.ClassTransient}, err: errors.New("bad data: " + secret), failure: "bootstrap data appears in the error"},
		{name: "bootstrap data in the message", want: Outcome{Result: step.Result{Message: secret}}, res: step.Result{Message: secret}, failure: "appears in the result message"},
		{name: "bootstrap data in a condition", change: withCondition("data " + secret), failure: `condition "A" message`},
		{name: "bootstrap data at a checkpoint", change: withCondition(secret), checkpoint: true, failure: "at checkpoint 1"},
		{name: "resource ID recorded and persisted", change: func(m *testtypes.FooMachine) { m.Status.Resources = map[string]string{"disk": "d-1"} }, checkpoint: true},
		{
			name: "resource ID recorded but not persisted", failure: `resource "disk" (id "d-1") was recorded but not persisted`,
			change: func(m *testtypes.FooMachine) { m.Status.Resources = map[string]string{"disk": "d-1"} },
		},
		{
			name: "resource ID persisted by a spec checkpoint only", checkpoint: true, specOnly: true, failure: "not persisted",
			change: func(m *testtypes.FooMachine) { m.Status.Resources = map[string]string{"disk": "d-1"} },
		},
		{
			name: "recorded resource ID not persisted after a failed call", want: Outcome{Class: reconcile.ClassTransient}, err: errors.New("conflict"),
			change: func(m *testtypes.FooMachine) { m.Status.Resources = map[string]string{"disk": "d-1"} },
		},
		{name: "provider ID checkpointed by PatchSpecNow", change: setPID("mem://1"), checkpoint: true, specOnly: true},
		{name: "provider ID checkpointed by PatchNow", change: setPID("mem://1"), checkpoint: true},
		{
			name: "provider ID with no checkpoint and no persisted resource ID", change: setPID("mem://1"),
			failure: `spec.providerID "mem://1" was set but not persisted by a checkpoint, and names no resource ID persisted`,
		},
		{
			name: "provider ID naming a resource ID persisted by PatchNow", change: setIDs(map[string]string{"vm": "i-1"}), checkpoint: true,
			changeAfter: setPID("mem://i-1"),
		},
		{
			name: "provider ID naming a resource ID at the end of a path", change: setIDs(map[string]string{"disk": "d-1", "vm": "i-1"}), checkpoint: true,
			changeAfter: setPID("mycloud:///zone-a/i-1"),
		},
		{name: "provider ID naming a resource ID persisted before the call", start: setIDs(map[string]string{"vm": "i-1"}), change: setPID("mem://i-1")},
		{
			name: "provider ID naming a resource ID not persisted", change: func(m *testtypes.FooMachine) { setIDs(map[string]string{"vm": "i-1"})(m); setPID("mem://i-1")(m) },
			failure: `spec.providerID "mem://i-1" was set but not persisted`,
		},
		{
			name: "provider ID naming a resource ID persisted by a spec checkpoint only", change: setIDs(map[string]string{"vm": "i-1"}), checkpoint: true, specOnly: true,
			changeAfter: setPID("mem://i-1"), failure: `spec.providerID "mem://i-1" was set but not persisted`,
		},
		{
			name: "provider ID naming a persisted resource ID in part only", change: setIDs(map[string]string{"vm": "i-1"}), checkpoint: true,
			changeAfter: setPID("mem://i-10"), failure: `spec.providerID "mem://i-10" was set but not persisted`,
		},
		{
			name: "provider ID naming a resource ID the call forgot", start: setIDs(map[string]string{"vm": "i-1"}), change: setIDs(nil), checkpoint: true,
			changeAfter: setPID("mem://i-1"), failure: `spec.providerID "mem://i-1" was set but not persisted`,
		},
		{name: "unchanged", want: Outcome{Unchanged: true}},
		{name: "changed", want: Outcome{Unchanged: true}, change: func(m *testtypes.FooMachine) { m.Spec.Size = "large" }, failure: "changed the object"},
		{name: "checkpointed", want: Outcome{Unchanged: true}, checkpoint: true, failure: "checkpointed the object 1 times"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := &scopetest.FakeObject[*testtypes.FooMachine]{Object: &testtypes.FooMachine{}}
			if tc.start != nil {
				tc.start(obj.Object)
			}
			before := obj.Object.DeepCopyObject().(*testtypes.FooMachine)
			if tc.change != nil {
				tc.change(obj.Object)
			}
			if tc.checkpoint {
				if tc.specOnly {
					require.NoError(t, obj.PatchSpecNow(t.Context()))
				} else {
					require.NoError(t, obj.PatchNow(t.Context()))
				}
			}
			if tc.changeAfter != nil {
				tc.changeAfter(obj.Object)
			}
			r := &recorder{}
			check(r, tc.name, tc.want, observed[*testtypes.FooMachine]{res: tc.res, err: tc.err, before: before, obj: obj, secret: []byte(secret)})
			if tc.failure == "" {
				assert.Empty(t, r.errs)
				return
			}
			assert.Contains(t, strings.Join(r.errs, "\n"), tc.failure)
			for _, e := range r.errs {
				assert.True(t, strings.HasPrefix(e, strconv.Quote(tc.name)+": "), "the failure %q does not start with the case's name", e)
			}
		})
	}
}

func setPID(pid string) func(*testtypes.FooMachine) {
	return func(m *testtypes.FooMachine) { m.Spec.ProviderID = pid }
}

func setIDs(ids map[string]string) func(*testtypes.FooMachine) {
	return func(m *testtypes.FooMachine) { m.Status.Resources = maps.Clone(ids) }
}

func TestContainsSegment(t *testing.T) {
	for _, tc := range []struct {
		pid, id string
		want    bool
	}{
		{"mem://i-1", "i-1", true},
		{"aws:///us-east-1a/i-1", "i-1", true},
		{"azure:///subscriptions/s/virtualMachines/vm", "/subscriptions/s/virtualMachines/vm", true},
		{"gce://project/zone/vm/extra", "vm", true},
		{"mem://i-10", "i-1", false},
		{"mem://xi-1", "i-1", false},
		{"mem://xi-1/i-1", "i-1", true},
		{"mem://", "", false},
	} {
		assert.Equal(t, tc.want, containsSegment(tc.pid, tc.id), "containsSegment(%q, %q)", tc.pid, tc.id)
	}
}

// failingCaseEnv makes TestFailingCaseReport run its failing case, in the process that
// TestFailuresNameTheCaseAtTheCallersLine starts.
const failingCaseEnv = "SERVICETEST_FAILING_CASE"

// callerLine prints the line it is called from, the line of the call whose argument it is, and returns v.
func callerLine[V any](v V) V {
	_, _, line, _ := runtime.Caller(1)
	fmt.Printf("RUN-CASES-LINE=%d\n", line)
	return v
}

// TestFailingCaseReport runs a case that fails, when failingCaseEnv is set; it is not a test on its own.
func TestFailingCaseReport(t *testing.T) {
	if os.Getenv(failingCaseEnv) == "" {
		t.Skip("run by TestFailuresNameTheCaseAtTheCallersLine")
	}
	notDone := reconcile.ServiceFuncs[scope.ClusterScoper[*testtypes.FooCluster]]{
		ReconcileFunc: func(context.Context, scope.ClusterScoper[*testtypes.FooCluster]) (step.Result, error) {
			return step.Result{Reason: "Waiting"}, nil
		},
	}
	newService := func(*testing.T) (reconcile.Service[scope.ClusterScoper[*testtypes.FooCluster]], struct{}) {
		return notDone, struct{}{}
	}
	failing := ClusterCase[*testtypes.FooCluster, struct{}]{
		Name:  "the failing case",
		Scope: &scopetest.FakeClusterScope[*testtypes.FooCluster]{FakeObject: scopetest.FakeObject[*testtypes.FooCluster]{Object: &testtypes.FooCluster{}}},
		Want:  Outcome{Result: step.Result{Done: true}},
	}
	RunClusterCases(t, callerLine(newService), failing)
}

// TestFailuresNameTheCaseAtTheCallersLine runs a failing case in a test process of its own and checks its
// report: each failure starts with the case's name, at the line that calls RunClusterCases, not a line
// of the harness.
func TestFailuresNameTheCaseAtTheCallersLine(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestFailingCaseReport$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), failingCaseEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the failing case passed:\n%s", out)
	m := regexp.MustCompile(`RUN-CASES-LINE=(\d+)`).FindSubmatch(out)
	require.NotNil(t, m, "no line reported:\n%s", out)
	want := fmt.Sprintf(`check_internal_test.go:%s: "the failing case": `, m[1])
	var failures []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); regexp.MustCompile(`^\w+\.go:\d+: `).MatchString(l) {
			failures = append(failures, l)
		}
	}
	require.NotEmpty(t, failures, "no failure reported:\n%s", out)
	for _, f := range failures {
		assert.True(t, strings.HasPrefix(f, want), "failure %q does not start with %q", f, want)
	}
	assert.Contains(t, string(out), want+"result is")
}
