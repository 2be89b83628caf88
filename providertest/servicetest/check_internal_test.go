package servicetest

import (
	"context"
	"errors"
	"fmt"
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
		res  reconcile.Result
		err  error
		// change edits the object during the "call"; checkpoint then checkpoints it (PatchNow, or
		// PatchSpecNow when spec is true).
		change     func(m *testtypes.FooMachine)
		checkpoint bool
		specOnly   bool
		failure    string // "" when the outcome matches
	}{
		{name: "all matches", want: Outcome{Result: reconcile.Result{Done: true}}, res: reconcile.Result{Done: true}},
		{name: "class", err: errors.New("boom"), failure: "class is Transient"},
		{name: "class of a result", want: Outcome{Class: reconcile.ClassDone}, res: reconcile.Result{}, failure: "class is InProgress"},
		{name: "not done", want: Outcome{Class: reconcile.ClassInProgress, Reason: "Booting", RequeueAfter: reconcile.DefaultRequeueAfter,
			Result: reconcile.Result{Reason: "Booting"}}, res: reconcile.Result{Reason: "Booting"}},
		{name: "throttled", want: Outcome{Class: reconcile.ClassThrottled, Reason: conditions.ReasonThrottled, RequeueAfter: 5 * time.Second},
			err: fmt.Errorf("cannot create: %w", reconcile.Throttled(errors.New("429"), 5*time.Second))},
		{name: "throttled is not transient", want: Outcome{Class: reconcile.ClassTransient}, err: reconcile.Throttled(errors.New("429"), 0),
			failure: "class is Throttled"},
		{name: "requeue", want: Outcome{Class: reconcile.ClassThrottled, RequeueAfter: time.Minute}, err: reconcile.Throttled(errors.New("429"), 5*time.Second),
			failure: "requeue after 5s"},
		{name: "terminal", want: Outcome{Class: reconcile.ClassTerminal, Reason: "Quota"}, err: reconcile.Terminal("Quota", errors.New("x"))},
		{name: "terminal reason", want: Outcome{Class: reconcile.ClassTerminal, Reason: "Quota"}, err: reconcile.Terminal("Other", errors.New("x")), failure: `condition reason is "Other"`},
		{name: "controller-runtime terminal", want: Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonTerminalError}, err: crreconcile.TerminalError(errors.New("x"))},
		{name: "error is", want: Outcome{Class: reconcile.ClassTransient, ErrorIs: errNotFound}, err: errors.New("other"), failure: "does not wrap"},
		{name: "error contains", want: Outcome{Class: reconcile.ClassTransient, ErrorContains: "quota"}, err: errors.New("other"), failure: `does not contain "quota"`},
		{name: "result", res: reconcile.Result{Done: true}, failure: "result is"},
		{name: "bootstrap data in the error", want: Outcome{Class: reconcile.ClassTransient}, err: errors.New("bad data: " + secret), failure: "bootstrap data appears in the error"},
		{name: "bootstrap data in the message", want: Outcome{Result: reconcile.Result{Message: secret}}, res: reconcile.Result{Message: secret}, failure: "appears in the result message"},
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
		{name: "provider ID checkpointed", change: func(m *testtypes.FooMachine) { m.Spec.ProviderID = "mem://1" }, checkpoint: true, specOnly: true},
		{name: "provider ID not checkpointed", change: func(m *testtypes.FooMachine) { m.Spec.ProviderID = "mem://1" }, failure: `spec.providerID "mem://1" was set but not persisted`},
		{name: "unchanged", want: Outcome{Unchanged: true}},
		{name: "changed", want: Outcome{Unchanged: true}, change: func(m *testtypes.FooMachine) { m.Spec.Size = "large" }, failure: "changed the object"},
		{name: "checkpointed", want: Outcome{Unchanged: true}, checkpoint: true, failure: "checkpointed the object 1 times"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := &scopetest.FakeObject[*testtypes.FooMachine]{Object: &testtypes.FooMachine{}}
			before := obj.Object.DeepCopyObject().(*testtypes.FooMachine)
			if tc.change != nil {
				tc.change(obj.Object)
			}
			if tc.checkpoint {
				if tc.specOnly {
					require.NoError(t, obj.PatchSpecNow(context.Background()))
				} else {
					require.NoError(t, obj.PatchNow(context.Background()))
				}
			}
			r := &recorder{}
			check(r, tc.want, observed[*testtypes.FooMachine]{res: tc.res, err: tc.err, before: before, obj: obj, secret: []byte(secret)})
			if tc.failure == "" {
				assert.Empty(t, r.errs)
				return
			}
			assert.Contains(t, strings.Join(r.errs, "\n"), tc.failure)
		})
	}
}
