package capisim_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/examples/memcloud/capisim"
)

func TestNewRejectsBadSpecs(t *testing.T) {
	s, err := capisim.Scheme()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(s).Build()
	tests := []struct {
		name    string
		spec    capisim.ClusterSpec
		wantMsg string
	}{
		{"bad name", capisim.ClusterSpec{Namespace: "ns", Name: "Bad_Name", ControlPlane: 1}, `name "Bad_Name"`},
		{"no namespace", capisim.ClusterSpec{Name: "c", ControlPlane: 1}, `namespace ""`},
		{"no control plane", capisim.ClusterSpec{Namespace: "ns", Name: "c"}, "controlPlane 0 must be at least 1"},
		{"negative workers", capisim.ClusterSpec{Namespace: "ns", Name: "c", ControlPlane: 1, Workers: -1}, "workers -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := capisim.New(c, tt.spec)
			require.ErrorIs(t, err, capisim.ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
	_, err = capisim.New(nil, capisim.ClusterSpec{Namespace: "ns", Name: "c", ControlPlane: 1})
	assert.ErrorContains(t, err, "client is nil")
}

func TestMachineNamesAndBootstrapData(t *testing.T) {
	s, err := capisim.Scheme()
	require.NoError(t, err)
	d, err := capisim.New(fake.NewClientBuilder().WithScheme(s).Build(), capisim.ClusterSpec{Namespace: "ns", Name: "c", ControlPlane: 2, Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"c-cp-0", "c-cp-1", "c-md-0"}, d.MachineNames())
	assert.Equal(t, "v1.34.1", d.Spec().KubernetesVersion, "defaulted")

	first := string(capisim.BootstrapData("c", "c-cp-0", true))
	join := string(capisim.BootstrapData("c", "c-md-0", false))
	assert.True(t, strings.HasPrefix(first, "## template: jinja\n#cloud-config\n"))
	assert.Contains(t, first, "kubeadm init")
	assert.Contains(t, join, "kubeadm join")
	assert.Contains(t, join, capisim.BootstrapTokenMarker)
}
