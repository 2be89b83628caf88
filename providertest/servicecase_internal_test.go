package providertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// recorder is a TestingT that records failures.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) String() string { return strings.Join(r.errs, "\n") }

func TestCheckOutcomeReportsEachMismatch(t *testing.T) {
	given := ScopeState{BootstrapDataSecretName: "s", BootstrapData: []byte("token-xyz")}.withDefaults(true)
	errNotFound := errors.New("not found")
	tests := []struct {
		name        string
		want        Outcome
		got         func(s *ScopeState)
		res         reconcile.Result
		err         error
		checkpoints int
		failure     string // "" when the outcome matches
	}{
		{name: "all matches", want: Outcome{Result: reconcile.Result{Done: true}}, res: reconcile.Result{Done: true}},
		{name: "error class", want: Outcome{}, err: errors.New("boom"), failure: "error class is Transient"},
		{name: "terminal reason", want: Outcome{Error: Terminal, Reason: "Quota"}, err: reconcile.Terminal("Other", errors.New("x")), failure: `error reason is "Other"`},
		{name: "requeue", want: Outcome{Error: Requeue, Reason: "Busy"}, err: &reconcile.RequeueError{After: time.Second, Reason: "Busy"}},
		{name: "error is", want: Outcome{Error: Transient, ErrorIs: errNotFound}, err: errors.New("other"), failure: "does not wrap"},
		{name: "error contains", want: Outcome{Error: Transient, ErrorContains: "quota"}, err: errors.New("other"), failure: `does not contain "quota"`},
		{name: "result", want: Outcome{}, res: reconcile.Result{Done: true}, failure: "result"},
		{name: "unexpected state change", want: Outcome{}, got: func(s *ScopeState) { s.ProviderID = "mem://x" }, failure: "scope state"},
		{
			name: "expected state change", want: Outcome{State: func(s *ScopeState) { s.ProviderID = "mem://x" }},
			got: func(s *ScopeState) { s.ProviderID = "mem://x" },
		},
		{
			name: "condition times are ignored",
			want: Outcome{State: func(s *ScopeState) {
				s.Conditions = []metav1.Condition{{Type: "A", Status: "True", Reason: "R"}}
			}},
			got: func(s *ScopeState) {
				s.Conditions = []metav1.Condition{{Type: "A", Status: "True", Reason: "R", LastTransitionTime: metav1.Now()}}
			},
		},
		{name: "checkpoints", want: Outcome{}, checkpoints: 2, failure: "PatchNow calls"},
		{name: "bootstrap data in the error", want: Outcome{Error: Transient}, err: errors.New("bad data: token-xyz"), failure: "bootstrap data appears"},
		{name: "bootstrap data in the message", want: Outcome{Result: reconcile.Result{Message: "token-xyz"}}, res: reconcile.Result{Message: "token-xyz"}, failure: "bootstrap data appears"},
		{
			name: "bootstrap data in a condition",
			want: Outcome{State: func(s *ScopeState) { s.Conditions = []metav1.Condition{{Type: "A", Message: "token-xyz"}} }},
			got:  func(s *ScopeState) { s.Conditions = []metav1.Condition{{Type: "A", Message: "token-xyz"}} }, failure: "bootstrap data appears",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := given.DeepCopy()
			if tc.got != nil {
				tc.got(&got)
			}
			r := &recorder{}
			checkOutcome(r, tc.want, given, got, tc.res, tc.err, tc.checkpoints)
			if tc.failure == "" {
				assert.Empty(t, r.errs)
				return
			}
			assert.Contains(t, r.String(), tc.failure)
		})
	}
}

func TestScopeStateDefaults(t *testing.T) {
	m := ScopeState{ControlPlane: true, KubernetesVersion: "v1.36.3", BootstrapDataSecretName: "b"}.withDefaults(true)
	assert.Equal(t, "test", m.Name)
	assert.Equal(t, "default", m.Namespace)
	assert.Equal(t, "test-cluster", m.ClusterName)
	assert.Equal(t, "InfraMachine", m.Kind)
	assert.Equal(t, contract.V1Beta2, m.ContractVersion)
	assert.Equal(t, DefaultOwnershipKey, m.OwnershipKey)
	assert.Equal(t, scope.BootstrapFormatCloudConfig, m.BootstrapFormat)
	assert.True(t, contract.IsControlPlaneMachine(m.Machine))
	assert.Equal(t, "test-cluster", contract.ClusterNameOf(m.Machine))
	assert.Equal(t, "InfraMachine", m.Object.GetObjectKind().GroupVersionKind().Kind)

	c := ScopeState{NoOwnershipKey: true, Paused: true, ClusterInfrastructureProvisioned: true,
		ClusterControlPlaneEndpoint: contract.APIEndpoint{Host: "h", Port: 1}}.withDefaults(false)
	assert.Equal(t, "InfraCluster", c.Kind)
	assert.Empty(t, c.OwnershipKey)
	assert.Nil(t, c.Machine)
	paused, _ := contract.Cluster(contract.V1Beta2).Paused().Get(c.Cluster)
	assert.True(t, paused)

	orig := ScopeState{FailureDomains: []contract.FailureDomain{{Name: "a", Attributes: map[string]string{"k": "v"}}}}
	cp := orig.DeepCopy()
	cp.FailureDomains[0].Attributes["k"] = "changed"
	assert.Equal(t, "v", orig.FailureDomains[0].Attributes["k"], "DeepCopy shares nothing")
}

func TestWiredMachineScoper(t *testing.T) {
	ctrl := gomock.NewController(t)
	l := &liveScope{st: ScopeState{BootstrapDataSecretName: "b", BootstrapData: []byte("data"),
		ControlPlane: true, KubernetesVersion: "v1.36.3", MachineFailureDomain: "z1"}.withDefaults(true), logger: logr.Discard()}
	m := mocks.NewMockMachineScoper(ctrl)
	wireMachineScoper(m, l)
	var s scope.MachineScoper = m
	ctx := context.Background()

	assert.Equal(t, []string{"test", "default", "test-cluster", "InfraMachine", "v1.36.3", "z1", "b"},
		[]string{s.Name(), s.Namespace(), s.ClusterName(), s.Kind(), s.KubernetesVersion(), s.MachineFailureDomain(), s.BootstrapDataSecretName()})
	assert.True(t, s.IsControlPlane())
	assert.Equal(t, contract.V1Beta2, s.ContractVersion())
	assert.NotNil(t, s.Object())
	assert.NotNil(t, s.Cluster())
	assert.NotNil(t, s.Machine())
	assert.False(t, s.Paused())
	assert.False(t, s.ClusterInfrastructureProvisioned())
	assert.True(t, s.ClusterControlPlaneEndpoint().IsZero())
	s.Logger().Info("discarded")
	changed, err := s.HasChanges()
	require.NoError(t, err)
	assert.False(t, changed)

	require.NoError(t, s.SetProviderID("mem://1"))
	require.NoError(t, s.SetFailureDomain("z2"))
	require.NoError(t, s.SetAddresses([]contract.MachineAddress{{Type: contract.MachineHostName, Address: "h"}}))
	require.NoError(t, s.SetProvisioned(true))
	require.NoError(t, s.SetResourceID("vm", "i-1"))
	require.ErrorIs(t, s.SetResourceID("Bad Key", "x"), scope.ErrInvalidInput)
	require.ErrorIs(t, s.SetResourceID("vm", ""), scope.ErrInvalidInput)
	s.SetSummaryConditions("A", "B")
	_, err = conditions.MarkFalse(s.Conditions(), "A", "Waiting", "")
	require.NoError(t, err)
	changed, _ = s.HasChanges()
	assert.True(t, changed)
	require.NoError(t, s.PatchNow(ctx))
	changed, _ = s.HasChanges()
	assert.False(t, changed, "PatchNow persists the changes")
	id, ok := s.ResourceID("vm")
	assert.True(t, ok)
	assert.Equal(t, "i-1", id)
	require.NoError(t, s.DeleteResourceID("vm"))
	_, ok = s.ResourceID("vm")
	assert.False(t, ok)
	data, format, err := s.BootstrapData(ctx)
	require.NoError(t, err)
	assert.Equal(t, "data", string(data))
	assert.Equal(t, scope.BootstrapFormatCloudConfig, format)
	key, err := s.OwnershipKey()
	require.NoError(t, err)
	assert.Equal(t, DefaultOwnershipKey, key)

	got := l.snapshot()
	assert.Equal(t, "mem://1", s.ProviderID())
	assert.Equal(t, "z2", s.FailureDomain())
	assert.True(t, s.Provisioned())
	assert.Len(t, s.Addresses(), 1)
	assert.Equal(t, []string{"A", "B"}, got.SummaryConditions)
	assert.True(t, conditions.IsFalse(s.Conditions(), "A"))
	assert.Equal(t, 1, l.checkpoints)
}

func TestWiredClusterScoper(t *testing.T) {
	ctrl := gomock.NewController(t)
	l := &liveScope{st: ScopeState{NoOwnershipKey: true, Paused: true}.withDefaults(false), logger: logr.Discard()}
	m := mocks.NewMockClusterScoper(ctrl)
	wireClusterScoper(m, l)
	var s scope.ClusterScoper = m

	_, err := s.OwnershipKey()
	require.ErrorIs(t, err, scope.ErrOwnershipKeyNotPersisted)
	assert.True(t, s.Paused())
	require.NoError(t, s.SetControlPlaneEndpoint(contract.APIEndpoint{Host: "h", Port: 6443}))
	ep, err := s.ControlPlaneEndpoint()
	require.NoError(t, err)
	assert.Equal(t, "h", ep.Host)
	require.NoError(t, s.SetFailureDomains([]contract.FailureDomain{{Name: "a"}}))
	fds, err := s.FailureDomains()
	require.NoError(t, err)
	assert.Equal(t, "a", fds[0].Name)
	require.NoError(t, s.SetProvisioned(true))
	assert.True(t, s.Provisioned())
	assert.Equal(t, "InfraCluster", s.Kind())
	assert.Equal(t, []string{"test", "default", "test-cluster"}, []string{s.Name(), s.Namespace(), s.ClusterName()})
	assert.Equal(t, contract.V1Beta2, s.ContractVersion())
	assert.NotNil(t, s.Object())
	assert.NotNil(t, s.Cluster())
	assert.False(t, s.ClusterInfrastructureProvisioned())
	assert.True(t, s.ClusterControlPlaneEndpoint().IsZero())
	s.Logger().Info("discarded")
	s.SetSummaryConditions()
	changed, err := s.HasChanges()
	require.NoError(t, err)
	assert.True(t, changed)
	require.NoError(t, s.SetResourceID("lb", "lb-1"))
	id, _ := s.ResourceID("lb")
	assert.Equal(t, "lb-1", id)
	require.NoError(t, s.DeleteResourceID("lb"))
	require.NoError(t, s.PatchNow(context.Background()))
	assert.Empty(t, s.Conditions().GetConditions())
	assert.Equal(t, "Terminal", Terminal.String())
}
