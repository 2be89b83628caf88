package providertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"go.uber.org/mock/gomock"

	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// ErrorClass is the class of error a case expects from the service, as the reconcilers tell them apart.
type ErrorClass int

const (
	// NoError means the service returns nil.
	NoError ErrorClass = iota
	// Terminal means a reconcile.TerminalError (condition False, no retry).
	Terminal
	// Transient means any error that is neither terminal nor a requeue (retried with backoff).
	Transient
	// Requeue means a reconcile.RequeueError (checked again later without backoff).
	Requeue
)

// String returns the class name.
func (c ErrorClass) String() string {
	return [...]string{"NoError", "Terminal", "Transient", "Requeue"}[c]
}

func classOf(err error) ErrorClass {
	var rq *reconcile.RequeueError
	switch {
	case err == nil:
		return NoError
	case reconcile.IsTerminal(err):
		return Terminal
	case errors.As(err, &rq):
		return Requeue
	}
	return Transient
}

func reasonOf(err error) string {
	var term *reconcile.TerminalError
	var rq *reconcile.RequeueError
	switch {
	case errors.As(err, &term):
		return term.Reason
	case errors.As(err, &rq):
		return rq.Reason
	}
	return ""
}

// Outcome is what a case expects after the service call.
type Outcome struct {
	// Result is the reconcile.Result the service must return.
	Result reconcile.Result
	// Error is the class of the error the service must return.
	Error ErrorClass
	// Reason, when not empty, is the reason of the terminal or requeue error.
	Reason string
	// ErrorIs, when not nil, must be in the error's chain.
	ErrorIs error
	// ErrorContains, when not empty, must be part of the error's message.
	ErrorContains string
	// State changes a copy of the case's starting state (defaults applied) into the state the scope must
	// hold afterwards; nil means the service must change nothing. Condition LastTransitionTimes are not
	// compared.
	State func(s *ScopeState)
	// Checkpoints is how many times the service must call PatchNow.
	Checkpoints int
}

// ServiceCase is one table entry of RunServiceCases: a mocked scope of type M (e.g.
// *mocks.MockMachineScoper) in the starting state Given, the calls specific to the case, and the outcome.
// D is whatever the provider's service constructor returns besides the service, typically its own mocks
// of the cloud (use struct{} when there are none).
type ServiceCase[M, D any] struct {
	// Name names the subtest.
	Name string
	// Given is the scope's starting state; the mock's getters and setters are wired to it.
	Given ScopeState
	// Delete calls the service's Delete instead of Reconcile.
	Delete bool
	// Expect states the calls specific to the case, on the scope mock (e.g. a PatchNow that fails, a call
	// that must not happen: .Times(0)) or on the provider's mocks in deps. Expectations added here take
	// precedence over the wired defaults. Optional.
	Expect func(m M, deps D)
	// Want is the expected outcome.
	Want Outcome
	// Verify makes further assertions on the final state and the provider's dependencies. Optional.
	Verify func(t *testing.T, got ScopeState, deps D)
}

// MachineCase is a ServiceCase of a service of InfraMachines.
type MachineCase[D any] = ServiceCase[*mocks.MockMachineScoper, D]

// ClusterCase is a ServiceCase of a service of InfraClusters.
type ClusterCase[D any] = ServiceCase[*mocks.MockClusterScoper, D]

// ScopeKind tells RunServiceCases which scope mock to build and how to wire it: MachineScoper or
// ClusterScoper.
type ScopeKind[M, S any] struct {
	name    string
	machine bool
	build   func(ctrl *gomock.Controller, l *liveScope) (M, S, func())
}

// MachineScoper mocks scope.MachineScoper with mocks.MockMachineScoper.
var MachineScoper = ScopeKind[*mocks.MockMachineScoper, scope.MachineScoper]{
	name: "MachineScoper", machine: true,
	build: func(ctrl *gomock.Controller, l *liveScope) (*mocks.MockMachineScoper, scope.MachineScoper, func()) {
		m := mocks.NewMockMachineScoper(ctrl)
		return m, m, func() { wireMachineScoper(m, l) }
	},
}

// ClusterScoper mocks scope.ClusterScoper with mocks.MockClusterScoper.
var ClusterScoper = ScopeKind[*mocks.MockClusterScoper, scope.ClusterScoper]{
	name: "ClusterScoper",
	build: func(ctrl *gomock.Controller, l *liveScope) (*mocks.MockClusterScoper, scope.ClusterScoper, func()) {
		m := mocks.NewMockClusterScoper(ctrl)
		return m, m, func() { wireClusterScoper(m, l) }
	},
}

// RunServiceCases runs each case as a subtest: it builds a gomock controller, the provider's service and
// dependencies with newService, the scope mock of kind in the case's Given state, adds the case's Expect
// calls, wires every getter and setter of the scope to the state, calls Reconcile (or Delete) once and
// asserts Want: the result, the error class and reason, the final state and the number of PatchNow calls.
// gomock reports calls the case expected but did not get, and calls to unwired methods (Close). The case
// also fails when the bootstrap data appears in the error, the result message or a condition.
func RunServiceCases[M, S, D any](t *testing.T, kind ScopeKind[M, S], newService func(ctrl *gomock.Controller) (reconcile.Service[S], D), cases ...ServiceCase[M, D]) {
	t.Helper()
	if kind.build == nil || newService == nil {
		t.Fatal("cannot run service cases: kind and newService must not be nil (use providertest.MachineScoper or ClusterScoper)")
	}
	seen := map[string]bool{}
	for i, tc := range cases {
		name := tc.Name
		if name == "" {
			name = fmt.Sprintf("case-%d", i)
		}
		if seen[name] {
			t.Errorf("service case %d: duplicate name %q", i, name)
			continue
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) { runServiceCase(t, kind, newService, tc) })
	}
}

// RunMachineServiceCases is RunServiceCases for services of scope.MachineScoper.
func RunMachineServiceCases[D any](t *testing.T, newService func(ctrl *gomock.Controller) (reconcile.Service[scope.MachineScoper], D), cases ...MachineCase[D]) {
	t.Helper()
	RunServiceCases(t, MachineScoper, newService, cases...)
}

// RunClusterServiceCases is RunServiceCases for services of scope.ClusterScoper.
func RunClusterServiceCases[D any](t *testing.T, newService func(ctrl *gomock.Controller) (reconcile.Service[scope.ClusterScoper], D), cases ...ClusterCase[D]) {
	t.Helper()
	RunServiceCases(t, ClusterScoper, newService, cases...)
}

func runServiceCase[M, S, D any](t *testing.T, kind ScopeKind[M, S], newService func(*gomock.Controller) (reconcile.Service[S], D), tc ServiceCase[M, D]) {
	ctrl := gomock.NewController(t)
	given := tc.Given.withDefaults(kind.machine)
	l := &liveScope{st: given.DeepCopy(), logger: testr.New(t)}
	svc, deps := newService(ctrl)
	if svc == nil {
		t.Fatal("newService returned a nil service")
	}
	m, s, wire := kind.build(ctrl, l)
	if tc.Expect != nil {
		tc.Expect(m, deps)
	}
	wire()

	ctx := context.Background()
	var res reconcile.Result
	var err error
	if tc.Delete {
		res, err = svc.Delete(ctx, s)
	} else {
		res, err = svc.Reconcile(ctx, s)
	}
	got := l.snapshot()
	checkOutcome(t, tc.Want, given, got, res, err, l.checkpoints)
	if tc.Verify != nil {
		tc.Verify(t, got, deps)
	}
}

func checkOutcome(t TestingT, want Outcome, given, got ScopeState, res reconcile.Result, err error, checkpoints int) {
	t.Helper()
	if class := classOf(err); class != want.Error {
		t.Errorf("error class is %s (%v), want %s", class, err, want.Error)
	}
	if want.Reason != "" && reasonOf(err) != want.Reason {
		t.Errorf("error reason is %q (%v), want %q", reasonOf(err), err, want.Reason)
	}
	if want.ErrorIs != nil && !errors.Is(err, want.ErrorIs) {
		t.Errorf("error %v does not wrap %v", err, want.ErrorIs)
	}
	if want.ErrorContains != "" && (err == nil || !strings.Contains(err.Error(), want.ErrorContains)) {
		t.Errorf("error %v does not contain %q", err, want.ErrorContains)
	}
	assert.Equal(t, want.Result, res, "result")
	expected := given.DeepCopy()
	if want.State != nil {
		want.State(&expected)
	}
	assert.Equal(t, expected.normalized(), got.normalized(), "scope state after the call (Want.State applied to Given)")
	assert.Equal(t, want.Checkpoints, checkpoints, "PatchNow calls")
	if secret := given.BootstrapData; len(secret) > 0 {
		leaks := []string{res.Message}
		if err != nil {
			leaks = append(leaks, err.Error())
		}
		for _, c := range got.Conditions {
			leaks = append(leaks, c.Message)
		}
		for _, s := range leaks {
			if bytes.Contains([]byte(s), secret) {
				t.Errorf("the bootstrap data appears in an error, the result message or a condition message: never put secrets there")
				break
			}
		}
	}
}
