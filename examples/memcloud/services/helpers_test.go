package services_test

import (
	"context"
	"testing"

	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/scope"
)

// clusterState is what a mocked ClusterScoper remembers: the resource-ID map, the endpoint, the failure
// domains, the provisioned flag and the number of checkpoints.
type clusterState struct {
	ids         map[string]string
	endpoint    contract.APIEndpoint
	domains     []contract.FailureDomain
	provisioned bool
	patches     int
}

// mockCluster returns a MockClusterScoper of a MemCluster "c1" in namespace "ns", backed by a clusterState.
func mockCluster(t *testing.T, mc *v1beta2.MemCluster) (*mocks.MockClusterScoper, *clusterState) {
	t.Helper()
	st := &clusterState{ids: map[string]string{}}
	s := mocks.NewMockClusterScoper(gomock.NewController(t))
	if mc == nil {
		mc = &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1", Generation: 1}}
	}
	s.EXPECT().Object().Return(mc).AnyTimes()
	s.EXPECT().Kind().Return("MemCluster").AnyTimes()
	s.EXPECT().Name().Return(mc.Name).AnyTimes()
	s.EXPECT().Namespace().Return(mc.Namespace).AnyTimes()
	s.EXPECT().ClusterName().Return("c1").AnyTimes()
	s.EXPECT().OwnershipKey().Return("cluster-key", nil).AnyTimes()
	s.EXPECT().ResourceID(gomock.Any()).DoAndReturn(func(k string) (string, bool) { id, ok := st.ids[k]; return id, ok }).AnyTimes()
	s.EXPECT().SetResourceID(gomock.Any(), gomock.Any()).DoAndReturn(func(k, id string) error { st.ids[k] = id; return nil }).AnyTimes()
	s.EXPECT().DeleteResourceID(gomock.Any()).DoAndReturn(func(k string) error { delete(st.ids, k); return nil }).AnyTimes()
	s.EXPECT().PatchNow(gomock.Any()).DoAndReturn(func(context.Context) error { st.patches++; return nil }).AnyTimes()
	s.EXPECT().ControlPlaneEndpoint().DoAndReturn(func() (contract.APIEndpoint, error) { return st.endpoint, nil }).AnyTimes()
	s.EXPECT().SetControlPlaneEndpoint(gomock.Any()).DoAndReturn(func(ep contract.APIEndpoint) error { st.endpoint = ep; return nil }).AnyTimes()
	s.EXPECT().SetFailureDomains(gomock.Any()).DoAndReturn(func(d []contract.FailureDomain) error { st.domains = d; return nil }).AnyTimes()
	s.EXPECT().SetProvisioned(gomock.Any()).DoAndReturn(func(p bool) error { st.provisioned = p; return nil }).AnyTimes()
	return s, st
}

// machineState is what a mocked MachineScoper remembers.
type machineState struct {
	providerID  string
	addresses   []contract.MachineAddress
	domain      string
	provisioned bool
	patches     int
	ids         map[string]string
}

// mockMachine returns a MockMachineScoper of MemMachine name in cluster "c1", backed by a machineState.
func mockMachine(t *testing.T, name string, controlPlane bool, data []byte) (*mocks.MockMachineScoper, *machineState, *v1beta2.MemMachine) {
	t.Helper()
	st := &machineState{ids: map[string]string{}}
	mm := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: 1}}
	s := mocks.NewMockMachineScoper(gomock.NewController(t))
	s.EXPECT().Object().Return(mm).AnyTimes()
	s.EXPECT().Kind().Return("MemMachine").AnyTimes()
	s.EXPECT().Name().Return(name).AnyTimes()
	s.EXPECT().Namespace().Return("ns").AnyTimes()
	s.EXPECT().ClusterName().Return("c1").AnyTimes()
	s.EXPECT().Cluster().Return(&unstructured.Unstructured{}).AnyTimes()
	s.EXPECT().IsControlPlane().Return(controlPlane).AnyTimes()
	s.EXPECT().MachineFailureDomain().Return("fd-a").AnyTimes()
	s.EXPECT().OwnershipKey().Return("key-"+name, nil).AnyTimes()
	s.EXPECT().BootstrapData(gomock.Any()).Return(data, scope.BootstrapFormatCloudConfig, nil).AnyTimes()
	s.EXPECT().ResourceID(gomock.Any()).DoAndReturn(func(k string) (string, bool) { id, ok := st.ids[k]; return id, ok }).AnyTimes()
	s.EXPECT().DeleteResourceID(gomock.Any()).DoAndReturn(func(k string) error { delete(st.ids, k); return nil }).AnyTimes()
	s.EXPECT().ProviderID().DoAndReturn(func() string { return st.providerID }).AnyTimes()
	s.EXPECT().SetProviderID(gomock.Any()).DoAndReturn(func(id string) error { st.providerID = id; return nil }).AnyTimes()
	s.EXPECT().PatchNow(gomock.Any()).DoAndReturn(func(context.Context) error { st.patches++; return nil }).AnyTimes()
	s.EXPECT().SetAddresses(gomock.Any()).DoAndReturn(func(a []contract.MachineAddress) error { st.addresses = a; return nil }).AnyTimes()
	s.EXPECT().SetFailureDomain(gomock.Any()).DoAndReturn(func(fd string) error { st.domain = fd; return nil }).AnyTimes()
	s.EXPECT().SetProvisioned(gomock.Any()).DoAndReturn(func(p bool) error { st.provisioned = p; return nil }).AnyTimes()
	return s, st, mm
}
