package providertest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/providertest"
)

func TestMockClusterScopeKeepsStateAcrossCalls(t *testing.T) {
	ctx := context.Background()
	s, live := providertest.MockClusterScope(t, providertest.ScopeState{ClusterName: "c1"})
	assert.Equal(t, "c1", s.ClusterName())
	assert.Equal(t, "default", s.Namespace(), "defaults applied")
	key, err := s.OwnershipKey()
	require.NoError(t, err)
	assert.Equal(t, providertest.DefaultOwnershipKey, key)

	require.NoError(t, s.SetResourceID("vpc", "vpc-1"))
	require.NoError(t, s.PatchNow(ctx))
	require.NoError(t, s.SetControlPlaneEndpoint(contract.APIEndpoint{Host: "lb", Port: 6443}))
	id, ok := s.ResourceID("vpc")
	assert.True(t, ok)
	assert.Equal(t, "vpc-1", id, "a later call sees what an earlier one wrote")

	got := live.State()
	assert.Equal(t, map[string]string{"vpc": "vpc-1"}, got.ResourceIDs)
	assert.Equal(t, contract.APIEndpoint{Host: "lb", Port: 6443}, got.ControlPlaneEndpoint)
	assert.Equal(t, 1, live.Checkpoints())
	assert.Error(t, s.SetResourceID("Not A Label", "x"), "keys are validated like a real scope")
}

func TestMockMachineScopeServesBootstrapData(t *testing.T) {
	ctx := context.Background()
	s, live := providertest.MockMachineScope(t, providertest.ScopeState{Name: "m-0", ControlPlane: true,
		BootstrapDataSecretName: "m-0", BootstrapData: []byte("#cloud-config\n")})
	data, format, err := s.BootstrapData(ctx)
	require.NoError(t, err)
	assert.Equal(t, "#cloud-config\n", string(data))
	assert.Equal(t, contract.FormatCloudConfig, string(format))
	assert.True(t, s.IsControlPlane())
	require.NoError(t, s.SetProviderID("fake://1"))
	require.NoError(t, s.SetProvisioned(true))
	assert.Equal(t, "fake://1", live.State().ProviderID)
	assert.True(t, live.State().Provisioned)
	assert.Zero(t, live.Checkpoints())
}
