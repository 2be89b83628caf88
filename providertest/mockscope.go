package providertest

import (
	"testing"

	"github.com/go-logr/logr/testr"
	"go.uber.org/mock/gomock"

	"github.com/capkit/capkit/mocks"
)

// LiveState is the state behind a scope mock of MockClusterScope or MockMachineScope: what its getters
// read and its setters write.
type LiveState struct{ l *liveScope }

// State returns a copy of the current state.
func (s *LiveState) State() ScopeState { return s.l.snapshot() }

// Checkpoints returns how many times PatchNow was called.
func (s *LiveState) Checkpoints() int {
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	return s.l.checkpoints
}

// MockClusterScope returns a mocks.MockClusterScoper in the state given (defaults applied as in a
// ServiceCase), every getter and setter wired to it, for tests that call several services or one service
// several times on the same scope; a single call is better stated as a ClusterCase. Expectations added to
// the mock afterwards come after the wired ones, so they cannot override them: use a ClusterCase for that.
func MockClusterScope(t *testing.T, given ScopeState) (*mocks.MockClusterScoper, *LiveState) {
	t.Helper()
	l := &liveScope{st: given.withDefaults(false), logger: testr.New(t)}
	m, _, wire := ClusterScoper.build(gomock.NewController(t), l)
	wire()
	return m, &LiveState{l: l}
}

// MockMachineScope is MockClusterScope for a mocks.MockMachineScoper.
func MockMachineScope(t *testing.T, given ScopeState) (*mocks.MockMachineScoper, *LiveState) {
	t.Helper()
	l := &liveScope{st: given.withDefaults(true), logger: testr.New(t)}
	m, _, wire := MachineScoper.build(gomock.NewController(t), l)
	wire()
	return m, &LiveState{l: l}
}
