package providertest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/go-logr/logr"
	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/scope"
)

// liveScope is the state behind a mocked scope during one case.
type liveScope struct {
	mu          sync.Mutex
	st          ScopeState
	checkpoints int
	dirty       bool
	logger      logr.Logger
}

// read returns f applied to the state under the lock.
func read[T any](l *liveScope, f func(s *ScopeState) T) func() T {
	return func() T {
		l.mu.Lock()
		defer l.mu.Unlock()
		return f(&l.st)
	}
}

// write applies f to the state under the lock and marks it changed.
func (l *liveScope) write(f func(s *ScopeState)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(&l.st)
	l.dirty = true
	return nil
}

func (l *liveScope) snapshot() ScopeState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.DeepCopy()
}

func (l *liveScope) ownershipKey() (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st.NoOwnershipKey {
		return "", fmt.Errorf("cannot use the ownership key of %s %s/%s: %w", l.st.Kind, l.st.Namespace, l.st.Name, scope.ErrOwnershipKeyNotPersisted)
	}
	return l.st.OwnershipKey, nil
}

func (l *liveScope) resourceID(key string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, ok := l.st.ResourceIDs[key]
	return id, ok && id != ""
}

func (l *liveScope) setResourceID(key, id string) error {
	if err := scope.ValidateResourceKey(key); err != nil {
		return fmt.Errorf("cannot record a resource ID: %w", err)
	}
	if id == "" {
		return fmt.Errorf("cannot record the resource ID of %q: id must not be empty: %w", key, scope.ErrInvalidInput)
	}
	return l.write(func(s *ScopeState) { s.ResourceIDs[key] = id })
}

func (l *liveScope) deleteResourceID(key string) error {
	return l.write(func(s *ScopeState) { delete(s.ResourceIDs, key) })
}

func (l *liveScope) patchNow(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.checkpoints++
	l.dirty = false
	return nil
}

func (l *liveScope) conditions() conditions.Setter {
	return conditionsSetter{l: l}
}

// conditionsSetter reads and writes the conditions of the live state under its lock.
type conditionsSetter struct{ l *liveScope }

func (c conditionsSetter) GetConditions() []metav1.Condition {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	return slices.Clone(c.l.st.Conditions)
}

func (c conditionsSetter) SetConditions(conds []metav1.Condition) {
	_ = c.l.write(func(s *ScopeState) { s.Conditions = slices.Clone(conds) })
}

func (l *liveScope) bootstrapData(context.Context) ([]byte, scope.BootstrapFormat, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.st.BootstrapDataSecretName == "":
		return nil, "", fmt.Errorf("cannot read the bootstrap data of Machine %s/%s: spec.bootstrap.dataSecretName is not set: %w", l.st.Namespace, l.st.Name, scope.ErrBootstrapDataNotReady)
	case len(l.st.BootstrapData) == 0:
		return nil, "", fmt.Errorf("cannot read the bootstrap data of Machine %s/%s: Secret %q has no value: %w", l.st.Namespace, l.st.Name, l.st.BootstrapDataSecretName, scope.ErrBootstrapDataMalformed)
	}
	return slices.Clone(l.st.BootstrapData), l.st.BootstrapFormat, nil
}

// wireMachineScoper programs m's getters to read l and its setters to write l; expectations a case added
// before take precedence (gomock matches expectations in the order they were added).
func wireMachineScoper(m *mocks.MockMachineScoper, l *liveScope) {
	e := m.EXPECT()
	e.Name().DoAndReturn(read(l, func(s *ScopeState) string { return s.Name })).AnyTimes()
	e.Namespace().DoAndReturn(read(l, func(s *ScopeState) string { return s.Namespace })).AnyTimes()
	e.ClusterName().DoAndReturn(read(l, func(s *ScopeState) string { return s.ClusterName })).AnyTimes()
	e.Kind().DoAndReturn(read(l, func(s *ScopeState) string { return s.Kind })).AnyTimes()
	e.ContractVersion().DoAndReturn(read(l, func(s *ScopeState) contract.Version { return s.ContractVersion })).AnyTimes()
	e.Object().DoAndReturn(read(l, func(s *ScopeState) client.Object { return s.Object })).AnyTimes()
	e.Logger().Return(l.logger).AnyTimes()
	e.Cluster().DoAndReturn(read(l, func(s *ScopeState) *unstructured.Unstructured { return s.Cluster })).AnyTimes()
	e.Paused().DoAndReturn(read(l, func(s *ScopeState) bool { return s.Paused })).AnyTimes()
	e.ClusterInfrastructureProvisioned().DoAndReturn(read(l, func(s *ScopeState) bool { return s.ClusterInfrastructureProvisioned })).AnyTimes()
	e.ClusterControlPlaneEndpoint().DoAndReturn(read(l, func(s *ScopeState) contract.APIEndpoint { return s.ClusterControlPlaneEndpoint })).AnyTimes()
	e.OwnershipKey().DoAndReturn(l.ownershipKey).AnyTimes()
	e.ResourceID(gomock.Any()).DoAndReturn(l.resourceID).AnyTimes()
	e.SetResourceID(gomock.Any(), gomock.Any()).DoAndReturn(l.setResourceID).AnyTimes()
	e.DeleteResourceID(gomock.Any()).DoAndReturn(l.deleteResourceID).AnyTimes()
	e.PatchNow(gomock.Any()).DoAndReturn(l.patchNow).AnyTimes()
	e.Conditions().DoAndReturn(l.conditions).AnyTimes()
	e.SetSummaryConditions(gomock.Any()).Do(func(types ...string) {
		_ = l.write(func(s *ScopeState) { s.SummaryConditions = slices.Clone(types) })
	}).AnyTimes()
	e.HasChanges().DoAndReturn(func() (bool, error) { return read(l, func(*ScopeState) bool { return l.dirty })(), nil }).AnyTimes()
	e.Provisioned().DoAndReturn(read(l, func(s *ScopeState) bool { return s.Provisioned })).AnyTimes()
	e.SetProvisioned(gomock.Any()).DoAndReturn(func(p bool) error { return l.write(func(s *ScopeState) { s.Provisioned = p }) }).AnyTimes()

	e.Machine().DoAndReturn(read(l, func(s *ScopeState) *unstructured.Unstructured { return s.Machine })).AnyTimes()
	e.IsControlPlane().DoAndReturn(read(l, func(s *ScopeState) bool { return s.ControlPlane })).AnyTimes()
	e.KubernetesVersion().DoAndReturn(read(l, func(s *ScopeState) string { return s.KubernetesVersion })).AnyTimes()
	e.MachineFailureDomain().DoAndReturn(read(l, func(s *ScopeState) string { return s.MachineFailureDomain })).AnyTimes()
	e.BootstrapDataSecretName().DoAndReturn(read(l, func(s *ScopeState) string { return s.BootstrapDataSecretName })).AnyTimes()
	e.BootstrapData(gomock.Any()).DoAndReturn(l.bootstrapData).AnyTimes()
	e.ProviderID().DoAndReturn(read(l, func(s *ScopeState) string { return s.ProviderID })).AnyTimes()
	e.SetProviderID(gomock.Any()).DoAndReturn(func(id string) error { return l.write(func(s *ScopeState) { s.ProviderID = id }) }).AnyTimes()
	e.Addresses().DoAndReturn(read(l, func(s *ScopeState) []contract.MachineAddress { return slices.Clone(s.Addresses) })).AnyTimes()
	e.SetAddresses(gomock.Any()).DoAndReturn(func(a []contract.MachineAddress) error {
		return l.write(func(s *ScopeState) { s.Addresses = slices.Clone(a) })
	}).AnyTimes()
	e.FailureDomain().DoAndReturn(read(l, func(s *ScopeState) string { return s.FailureDomain })).AnyTimes()
	e.SetFailureDomain(gomock.Any()).DoAndReturn(func(fd string) error { return l.write(func(s *ScopeState) { s.FailureDomain = fd }) }).AnyTimes()
}

// wireClusterScoper programs m like wireMachineScoper does.
func wireClusterScoper(m *mocks.MockClusterScoper, l *liveScope) {
	e := m.EXPECT()
	e.Name().DoAndReturn(read(l, func(s *ScopeState) string { return s.Name })).AnyTimes()
	e.Namespace().DoAndReturn(read(l, func(s *ScopeState) string { return s.Namespace })).AnyTimes()
	e.ClusterName().DoAndReturn(read(l, func(s *ScopeState) string { return s.ClusterName })).AnyTimes()
	e.Kind().DoAndReturn(read(l, func(s *ScopeState) string { return s.Kind })).AnyTimes()
	e.ContractVersion().DoAndReturn(read(l, func(s *ScopeState) contract.Version { return s.ContractVersion })).AnyTimes()
	e.Object().DoAndReturn(read(l, func(s *ScopeState) client.Object { return s.Object })).AnyTimes()
	e.Logger().Return(l.logger).AnyTimes()
	e.Cluster().DoAndReturn(read(l, func(s *ScopeState) *unstructured.Unstructured { return s.Cluster })).AnyTimes()
	e.Paused().DoAndReturn(read(l, func(s *ScopeState) bool { return s.Paused })).AnyTimes()
	e.ClusterInfrastructureProvisioned().DoAndReturn(read(l, func(s *ScopeState) bool { return s.ClusterInfrastructureProvisioned })).AnyTimes()
	e.ClusterControlPlaneEndpoint().DoAndReturn(read(l, func(s *ScopeState) contract.APIEndpoint { return s.ClusterControlPlaneEndpoint })).AnyTimes()
	e.OwnershipKey().DoAndReturn(l.ownershipKey).AnyTimes()
	e.ResourceID(gomock.Any()).DoAndReturn(l.resourceID).AnyTimes()
	e.SetResourceID(gomock.Any(), gomock.Any()).DoAndReturn(l.setResourceID).AnyTimes()
	e.DeleteResourceID(gomock.Any()).DoAndReturn(l.deleteResourceID).AnyTimes()
	e.PatchNow(gomock.Any()).DoAndReturn(l.patchNow).AnyTimes()
	e.Conditions().DoAndReturn(l.conditions).AnyTimes()
	e.SetSummaryConditions(gomock.Any()).Do(func(types ...string) {
		_ = l.write(func(s *ScopeState) { s.SummaryConditions = slices.Clone(types) })
	}).AnyTimes()
	e.HasChanges().DoAndReturn(func() (bool, error) { return read(l, func(*ScopeState) bool { return l.dirty })(), nil }).AnyTimes()
	e.Provisioned().DoAndReturn(read(l, func(s *ScopeState) bool { return s.Provisioned })).AnyTimes()
	e.SetProvisioned(gomock.Any()).DoAndReturn(func(p bool) error { return l.write(func(s *ScopeState) { s.Provisioned = p }) }).AnyTimes()

	e.ControlPlaneEndpoint().DoAndReturn(func() (contract.APIEndpoint, error) {
		return read(l, func(s *ScopeState) contract.APIEndpoint { return s.ControlPlaneEndpoint })(), nil
	}).AnyTimes()
	e.SetControlPlaneEndpoint(gomock.Any()).DoAndReturn(func(ep contract.APIEndpoint) error {
		return l.write(func(s *ScopeState) { s.ControlPlaneEndpoint = ep })
	}).AnyTimes()
	e.FailureDomains().DoAndReturn(func() ([]contract.FailureDomain, error) {
		return read(l, func(s *ScopeState) []contract.FailureDomain {
			return ScopeState{FailureDomains: s.FailureDomains}.DeepCopy().FailureDomains
		})(), nil
	}).AnyTimes()
	e.SetFailureDomains(gomock.Any()).DoAndReturn(func(d []contract.FailureDomain) error {
		return l.write(func(s *ScopeState) { s.FailureDomains = ScopeState{FailureDomains: d}.DeepCopy().FailureDomains })
	}).AnyTimes()
}
