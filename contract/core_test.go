package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCoreAccessorPaths(t *testing.T) {
	tests := []struct {
		name             string
		v1beta1, v1beta2 Path
		want1, want2     string
	}{
		{"Cluster.Paused", Cluster(V1Beta1).Paused().Path(), Cluster(V1Beta2).Paused().Path(), "spec.paused", "spec.paused"},
		{"Cluster.ControlPlaneEndpoint", Cluster(V1Beta1).ControlPlaneEndpoint().Path(), Cluster(V1Beta2).ControlPlaneEndpoint().Path(), "spec.controlPlaneEndpoint", "spec.controlPlaneEndpoint"},
		{"Cluster.InfrastructureProvisioned", Cluster(V1Beta1).InfrastructureProvisioned().Path(), Cluster(V1Beta2).InfrastructureProvisioned().Path(), "status.infrastructureReady", "status.initialization.infrastructureProvisioned"},
		{"Cluster.InfrastructureRef", Cluster(V1Beta1).InfrastructureRef().Path(), Cluster(V1Beta2).InfrastructureRef().Path(), "spec.infrastructureRef", "spec.infrastructureRef"},
		{"Machine.ClusterName", Machine(V1Beta1).ClusterName().Path(), Machine(V1Beta2).ClusterName().Path(), "spec.clusterName", "spec.clusterName"},
		{"Machine.BootstrapDataSecretName", Machine(V1Beta1).BootstrapDataSecretName().Path(), Machine(V1Beta2).BootstrapDataSecretName().Path(), "spec.bootstrap.dataSecretName", "spec.bootstrap.dataSecretName"},
		{"Machine.Version", Machine(V1Beta1).Version().Path(), Machine(V1Beta2).Version().Path(), "spec.version", "spec.version"},
		{"Machine.FailureDomain", Machine(V1Beta1).FailureDomain().Path(), Machine(V1Beta2).FailureDomain().Path(), "spec.failureDomain", "spec.failureDomain"},
		{"Machine.ProviderID", Machine(V1Beta1).ProviderID().Path(), Machine(V1Beta2).ProviderID().Path(), "spec.providerID", "spec.providerID"},
		{"Machine.InfrastructureRef", Machine(V1Beta1).InfrastructureRef().Path(), Machine(V1Beta2).InfrastructureRef().Path(), "spec.infrastructureRef", "spec.infrastructureRef"},
		{"Machine.BootstrapDataSecretCreated", Machine(V1Beta1).BootstrapDataSecretCreated().Path(), Machine(V1Beta2).BootstrapDataSecretCreated().Path(), "status.bootstrapReady", "status.initialization.bootstrapDataSecretCreated"},
		{"Machine.InfrastructureProvisioned", Machine(V1Beta1).InfrastructureProvisioned().Path(), Machine(V1Beta2).InfrastructureProvisioned().Path(), "status.infrastructureReady", "status.initialization.infrastructureProvisioned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want1, tt.v1beta1.String())
			assert.Equal(t, tt.want2, tt.v1beta2.String())
		})
	}
}

func TestCoreClusterRead(t *testing.T) {
	u := fromJSON(t, `{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"Cluster","metadata":{"name":"c"},
		"spec":{"paused":true,"controlPlaneEndpoint":{"host":"api.example.com","port":6443},
		"infrastructureRef":{"apiGroup":"infrastructure.example.com","kind":"MemCluster","name":"c"}},
		"status":{"initialization":{"infrastructureProvisioned":true}}}`)
	v, err := APIVersionOf(u)
	require.NoError(t, err)
	require.Equal(t, V1Beta2, v)
	c := Cluster(v)
	paused, err := c.Paused().Get(u)
	require.NoError(t, err)
	assert.True(t, paused)
	ep, err := c.ControlPlaneEndpoint().Get(u)
	require.NoError(t, err)
	assert.Equal(t, APIEndpoint{Host: "api.example.com", Port: 6443}, ep)
	prov, err := c.InfrastructureProvisioned().Get(u)
	require.NoError(t, err)
	assert.True(t, prov)
	ref, err := c.InfrastructureRef().Get(u)
	require.NoError(t, err)
	assert.Equal(t, "MemCluster", ref["kind"])
	_, err = Cluster(V1Beta1).InfrastructureProvisioned().Get(u)
	require.ErrorIs(t, err, ErrFieldNotFound)
}

func TestCoreMachineRead(t *testing.T) {
	u := fromJSON(t, `{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"Machine","metadata":{"name":"m",
		"labels":{"cluster.x-k8s.io/cluster-name":"c","cluster.x-k8s.io/control-plane":""}},
		"spec":{"clusterName":"c","version":"v1.34.0","failureDomain":"fd","providerID":"mem://m",
		"bootstrap":{"dataSecretName":"m-bootstrap"}},"status":{"bootstrapReady":true,"infrastructureReady":false}}`)
	v, err := APIVersionOf(u)
	require.NoError(t, err)
	require.Equal(t, V1Beta1, v)
	m := Machine(v)
	for _, tt := range []struct {
		f    Field[string]
		want string
	}{
		{m.ClusterName(), "c"}, {m.Version(), "v1.34.0"}, {m.FailureDomain(), "fd"}, {m.ProviderID(), "mem://m"},
		{m.BootstrapDataSecretName(), "m-bootstrap"},
	} {
		got, err := tt.f.Get(u)
		require.NoError(t, err, tt.f.Path().String())
		assert.Equal(t, tt.want, got, tt.f.Path().String())
	}
	ready, err := m.BootstrapDataSecretCreated().Get(u)
	require.NoError(t, err)
	assert.True(t, ready)
	infra, err := m.InfrastructureProvisioned().Get(u)
	require.NoError(t, err)
	assert.False(t, infra)
	_, err = m.InfrastructureRef().Get(u)
	require.ErrorIs(t, err, ErrFieldNotFound)
	assert.True(t, IsControlPlaneMachine(u))
	assert.Equal(t, "c", ClusterNameOf(u))
}

func TestCoreLabelHelpers(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	assert.False(t, IsControlPlaneMachine(u))
	assert.False(t, IsControlPlaneMachine(nil))
	assert.Equal(t, "", ClusterNameOf(u))
	assert.Equal(t, "", ClusterNameOf(nil))
}

func TestAPIVersionOfErrors(t *testing.T) {
	tests := []struct {
		name       string
		apiVersion string
	}{
		{"unknown version", "cluster.x-k8s.io/v1alpha4"},
		{"other group", "infrastructure.example.com/v1beta2"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{}}
			u.SetAPIVersion(tt.apiVersion)
			_, err := APIVersionOf(u)
			require.ErrorIs(t, err, ErrUnknownVersion)
		})
	}
	_, err := APIVersionOf(nil)
	require.ErrorIs(t, err, ErrUnknownVersion)
}
