package services_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/providertest"
)

// clusterState is the starting state of a MemCluster "c1" in namespace "ns" on a mocked scope.
func clusterState(mc *v1beta2.MemCluster) providertest.ScopeState {
	if mc == nil {
		mc = &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1", Generation: 1}}
	}
	return providertest.ScopeState{Name: mc.Name, Namespace: mc.Namespace, ClusterName: "c1", Kind: "MemCluster",
		Object: mc, OwnershipKey: "cluster-key"}
}

// mockCluster returns providertest's ClusterScoper mock of a MemCluster (clusterState), for tests that run
// several services on one scope; the MemCluster the services change is the scope's, s.Object().
func mockCluster(t *testing.T, mc *v1beta2.MemCluster) (*mocks.MockClusterScoper, *providertest.LiveState) {
	t.Helper()
	return providertest.MockClusterScope(t, clusterState(mc))
}

// machineState is the starting state of MemMachine name of cluster "c1" with bootstrap data, in failure
// domain "fd-a".
func machineState(name string, controlPlane bool, data []byte) providertest.ScopeState {
	return providertest.ScopeState{Name: name, Namespace: "ns", ClusterName: "c1", Kind: "MemMachine",
		Object:       &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: 1}},
		OwnershipKey: "key-" + name, ControlPlane: controlPlane, MachineFailureDomain: "fd-a",
		BootstrapDataSecretName: name, BootstrapData: data}
}

// mockMachine returns providertest's MachineScoper mock of a MemMachine (machineState) and the MemMachine
// the services change.
func mockMachine(t *testing.T, name string, controlPlane bool, data []byte) (*mocks.MockMachineScoper, *providertest.LiveState, *v1beta2.MemMachine) {
	t.Helper()
	s, live := providertest.MockMachineScope(t, machineState(name, controlPlane, data))
	return s, live, s.Object().(*v1beta2.MemMachine)
}
