package scope_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/scope"
)

func newMachinePool(ns, name, cluster string, spec map[string]any) *unstructured.Unstructured {
	spec["clusterName"] = cluster
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
		"metadata": map[string]any{"namespace": ns, "name": name}, "spec": spec}}
}

func infraPool(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infrastructure.example.io/v1alpha1", "kind": "FooMachinePool",
		"metadata": map[string]any{"namespace": ns, "name": name}}}
}

func TestMachinePoolScope(t *testing.T) {
	ctx := t.Context()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pool-data"}, Data: map[string][]byte{"value": []byte("#cloud-config\n")}}
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(secret).Build()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta2", nil)
	mp := newMachinePool("ns", "pool", "c1", map[string]any{"replicas": int64(3), "failureDomains": []any{"az-1", "az-2"},
		"template": map[string]any{"spec": map[string]any{"version": "v1.36.0", "bootstrap": map[string]any{"dataSecretName": "pool-data"}}}})
	obj := infraPool("ns", "pool")
	s, err := scope.NewUnstructuredMachinePoolScope(ctx, c, obj, mp, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)

	info := s.MachinePool()
	assert.Equal(t, int32(3), info.Replicas)
	assert.Equal(t, "v1.36.0", info.Version)
	assert.Equal(t, []string{"az-1", "az-2"}, info.FailureDomains)
	data, format, err := s.BootstrapData(ctx)
	require.NoError(t, err)
	assert.Equal(t, "#cloud-config\n", string(data))
	assert.Equal(t, scope.BootstrapFormatCloudConfig, format)

	require.NoError(t, s.SetInstances([]string{"foo://i-2", "foo://i-1"}))
	assert.Equal(t, []string{"foo://i-1", "foo://i-2"}, s.ProviderIDList(), "sorted")
	n, err := contract.InfraMachinePool(contract.V1Beta2).Replicas().Get(obj)
	require.NoError(t, err)
	assert.EqualValues(t, 2, n, "status.replicas kept in step with the list")
	require.NoError(t, s.SetProvisioned(true))
	ready, _, _ := unstructured.NestedBool(obj.Object, "status", "ready")
	provisioned, _, _ := unstructured.NestedBool(obj.Object, "status", "initialization", "provisioned")
	assert.True(t, ready && provisioned, "both flags Cluster API may read")

	for _, bad := range [][]string{{"i-1"}, {"foo://"}, {"foo://i-1", "foo://i-1"}} {
		err := s.SetInstances(bad)
		require.ErrorIs(t, err, scope.ErrInvalidInput, "%q", bad)
	}
	assert.Equal(t, []string{"foo://i-1", "foo://i-2"}, s.ProviderIDList(), "a refused list changes nothing")
	require.NoError(t, s.SetInstances(nil))
	assert.Empty(t, s.ProviderIDList())
	n, _ = contract.InfraMachinePool(contract.V1Beta2).Replicas().Get(obj)
	assert.Zero(t, n)
}

func TestNewMachinePoolScopeRejectsBadInput(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme()).Build()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta2", nil)
	tests := []struct {
		name    string
		pool    *unstructured.Unstructured
		wantMsg string
	}{
		{"nil MachinePool", nil, "machinePool is nil"},
		{"a Machine", newMachine(t, nil, "ns", "m", "v1beta2", "c1", nil), `kind "Machine"`},
		{"another cluster's", newMachinePool("ns", "pool", "other", map[string]any{}), `spec.clusterName "other", want "c1"`},
		{"replicas out of range", newMachinePool("ns", "pool", "c1", map[string]any{"replicas": int64(-1)}), "spec.replicas -1 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scope.NewUnstructuredMachinePoolScope(t.Context(), c, infraPool("ns", "pool"), tt.pool, cluster, scope.WithContractVersion(contract.V1Beta2))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
	mp := newMachinePool("ns", "pool", "c1", map[string]any{})
	s, err := scope.NewUnstructuredMachinePoolScope(t.Context(), c, infraPool("ns", "pool"), mp, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	assert.Equal(t, int32(1), s.MachinePool().Replicas, "Cluster API's default")
	_, _, err = s.BootstrapData(t.Context())
	require.ErrorIs(t, err, scope.ErrBootstrapDataNotReady)
	assert.Contains(t, err.Error(), "spec.template.spec.bootstrap.dataSecretName is not set")
}
