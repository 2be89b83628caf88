package webhooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
	"github.com/capkit/capkit/internal/scaffold/template/webhooks"
)

func TestQuuxMachineDefaultsAndImmutability(t *testing.T) {
	ctx := t.Context()
	m := &v1beta2.QuuxMachine{}
	require.NoError(t, webhooks.QuuxMachine.Default(ctx, m))
	assert.Equal(t, v1beta2.DefaultImage, m.Spec.Image)
	assert.Equal(t, v1beta2.DefaultInstanceType, m.Spec.InstanceType)

	tests := []struct {
		name    string
		change  func(s *v1beta2.QuuxMachineSpec)
		wantErr string
	}{
		{name: "providerID set once", change: func(s *v1beta2.QuuxMachineSpec) { s.ProviderID = v1beta2.ProviderID("i-1") }},
		{name: "image is immutable", change: func(s *v1beta2.QuuxMachineSpec) { s.Image = "other" }, wantErr: "spec.image"},
		{name: "instanceType is immutable", change: func(s *v1beta2.QuuxMachineSpec) { s.InstanceType = "large" }, wantErr: "spec.instanceType"},
		{name: "providerID is checked", change: func(s *v1beta2.QuuxMachineSpec) { s.ProviderID = "bad" }, wantErr: "spec.providerID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			updated := m.DeepCopy()
			tt.change(&updated.Spec)
			_, err := webhooks.QuuxMachine.ValidateUpdate(ctx, m, updated)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestQuuxClusterEndpointIsImmutableOnceSet(t *testing.T) {
	ctx := t.Context()
	c := &v1beta2.QuuxCluster{}
	require.NoError(t, webhooks.QuuxCluster.Default(ctx, c))
	assert.Equal(t, int32(v1beta2.DefaultLoadBalancerPort), c.Spec.LoadBalancerPort)

	set := c.DeepCopy()
	set.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb", Port: 6443}
	_, err := webhooks.QuuxCluster.ValidateUpdate(ctx, c, set)
	require.NoError(t, err, "the controller sets the endpoint once")
	moved := set.DeepCopy()
	moved.Spec.ControlPlaneEndpoint.Host = "other"
	_, err = webhooks.QuuxCluster.ValidateUpdate(ctx, set, moved)
	require.ErrorContains(t, err, "spec.controlPlaneEndpoint")
}
