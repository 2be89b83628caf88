package contract_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
)

func TestInfraMachinePoolFields(t *testing.T) {
	for _, v := range []contract.Version{contract.V1Beta1, contract.V1Beta2} {
		t.Run(string(v), func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{}}
			f := contract.InfraMachinePool(v)
			require.NoError(t, f.ProviderIDList().Set(u, []string{"mem://i-1", "mem://i-2"}))
			require.NoError(t, f.Replicas().Set(u, 2))
			require.NoError(t, contract.SetMachinePoolProvisioned(u, v, true))
			require.NoError(t, f.InfrastructureMachineKind().Set(u, "MemMachine"))

			ids, err := f.ProviderIDList().Get(u)
			require.NoError(t, err)
			assert.Equal(t, []string{"mem://i-1", "mem://i-2"}, ids)
			assert.Equal(t, []any{"mem://i-1", "mem://i-2"}, u.Object["spec"].(map[string]any)["providerIDList"])
			n, err := f.Replicas().Get(u)
			require.NoError(t, err)
			assert.EqualValues(t, 2, n)
			ready, _, _ := unstructured.NestedBool(u.Object, "status", "ready")
			assert.True(t, ready, "status.ready, which Cluster API v1.14 reads for machine pools of both contracts")
			provisioned, err := f.Provisioned().Get(u)
			require.NoError(t, err)
			assert.True(t, provisioned)
			if v == contract.V1Beta2 {
				p, _, _ := unstructured.NestedBool(u.Object, "status", "initialization", "provisioned")
				assert.True(t, p, "and the v1beta2 path")
			}
			kind, err := f.InfrastructureMachineKind().Get(u)
			require.NoError(t, err)
			assert.Equal(t, "MemMachine", kind)
			assert.Equal(t, "status.replicas", f.Replicas().Path().String())
		})
	}
}

func TestInfraMachinePoolReplicasOfTheWrongType(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"replicas": "3"}}}
	_, err := contract.InfraMachinePool(contract.V1Beta2).Replicas().Get(u)
	require.ErrorIs(t, err, contract.ErrFieldType)
	assert.Contains(t, err.Error(), "status.replicas")
}

func TestInfraMachinePoolInitialization(t *testing.T) {
	var i contract.InfraMachinePoolInitialization
	assert.False(t, i.IsProvisioned())
	i.SetProvisioned(true)
	assert.True(t, i.IsProvisioned())
}

func TestMachinePoolFields(t *testing.T) {
	mp := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"clusterName": "c1", "replicas": int64(4), "failureDomains": []any{"az-1"},
		"template": map[string]any{"spec": map[string]any{"version": "v1.36.0", "bootstrap": map[string]any{"dataSecretName": "data"},
			"infrastructureRef": map[string]any{"kind": "MemMachinePool", "name": "pool"}}}}}}
	for _, v := range []contract.Version{contract.V1Beta1, contract.V1Beta2} {
		f := contract.MachinePool(v)
		name, _ := f.ClusterName().Get(mp)
		replicas, _ := f.Replicas().Get(mp)
		fds, _ := f.FailureDomains().Get(mp)
		version, _ := f.Version().Get(mp)
		secret, _ := f.BootstrapDataSecretName().Get(mp)
		ref, _ := f.InfrastructureRef().Get(mp)
		assert.Equal(t, "c1", name)
		assert.EqualValues(t, 4, replicas)
		assert.Equal(t, []string{"az-1"}, fds)
		assert.Equal(t, "v1.36.0", version)
		assert.Equal(t, "data", secret)
		assert.Equal(t, "pool", ref["name"])
	}
}

func TestUnstructuredMachinePoolAccessors(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	a := contract.Unstructured(u, contract.V1Beta2)
	a.SetProviderIDList([]string{"mem://i-1"})
	a.SetStatusReplicas(1)
	require.NoError(t, a.Err())
	assert.Equal(t, []string{"mem://i-1"}, a.GetProviderIDList())
	assert.Equal(t, int32(1), a.GetStatusReplicas())
	f := contract.InfraMachinePool(contract.V1Beta1)
	require.NoError(t, f.FailureReason().Set(u, "x"))
	require.NoError(t, f.FailureMessage().Set(u, "y"))
	assert.Equal(t, "status.failureReason", f.FailureReason().Path().String())
	c, err := f.Conditions().Get(u)
	assert.Error(t, err, "no conditions at status.v1beta2.conditions")
	assert.Nil(t, c)
}
