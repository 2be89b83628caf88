package v1beta2_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

func TestProviderIDRoundTrip(t *testing.T) {
	id, err := v1beta2.InstanceIDFromProviderID(v1beta2.ProviderID("i-1f2e3d4c"))
	require.NoError(t, err)
	assert.Equal(t, "i-1f2e3d4c", id)
	assert.Equal(t, "memcloud://i-1f2e3d4c", v1beta2.ProviderID("i-1f2e3d4c"))
}

func TestInstanceIDFromProviderIDRejects(t *testing.T) {
	for _, tc := range []struct {
		name, providerID, wantInMsg string
	}{
		{"empty", "", `want prefix "memcloud://"`},
		{"other provider", "aws:///us-east-1a/i-123", `"aws:///us-east-1a/i-123"`},
		{"no instance", "memcloud://", "no instance ID"},
		{"slash", "memcloud:///i-1", "slash or white space"},
		{"space", "memcloud://i-1 2", "slash or white space"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v1beta2.InstanceIDFromProviderID(tc.providerID)
			require.ErrorIs(t, err, v1beta2.ErrInvalidProviderID)
			assert.Contains(t, err.Error(), tc.wantInMsg)
		})
	}
}

func TestNetworkSubnetByRole(t *testing.T) {
	n := v1beta2.NetworkSpec{Subnets: []v1beta2.SubnetSpec{
		{Name: "cp", CIDR: "10.0.0.0/24", Role: v1beta2.SubnetRoleControlPlane},
		{Name: "w1", CIDR: "10.0.1.0/24", Role: v1beta2.SubnetRoleWorker},
		{Name: "w2", CIDR: "10.0.2.0/24", Role: v1beta2.SubnetRoleWorker},
	}}
	s, ok := n.Subnet(v1beta2.SubnetRoleWorker)
	require.True(t, ok)
	assert.Equal(t, "w1", s.Name, "the first subnet of the role")

	_, ok = v1beta2.NetworkSpec{}.Subnet(v1beta2.SubnetRoleControlPlane)
	assert.False(t, ok)
}
