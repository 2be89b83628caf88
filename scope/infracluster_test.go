package scope_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/scope"
)

func TestGetInfraCluster(t *testing.T) {
	sch := runtime.NewScheme()
	require.NoError(t, v1beta2.AddToScheme(sch))
	r := fake.NewClientBuilder().WithScheme(sch).
		WithObjects(&v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "infra"}}).Build()
	cluster := func(version string, ref map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cluster.x-k8s.io/" + version, "kind": "Cluster",
			"metadata": map[string]any{"name": "c1", "namespace": "team-a"}, "spec": map[string]any{"infrastructureRef": ref}}}
	}
	v1beta2Ref := map[string]any{"apiGroup": v1beta2.GroupName, "kind": "MemCluster", "name": "infra"}
	tests := []struct {
		name    string
		cluster *unstructured.Unstructured
		wantErr string // empty: found
	}{
		{name: "v1beta2 reference", cluster: cluster("v1beta2", v1beta2Ref)},
		{name: "v1beta1 reference", cluster: cluster("v1beta1", map[string]any{"apiVersion": v1beta2.GroupVersion.String(), "kind": "MemCluster", "name": "infra"})},
		{name: "another kind", cluster: cluster("v1beta2", map[string]any{"apiGroup": "x", "kind": "FooCluster", "name": "infra"}),
			wantErr: `spec.infrastructureRef names "FooCluster" "infra"`},
		{name: "gone", cluster: cluster("v1beta2", map[string]any{"apiGroup": v1beta2.GroupName, "kind": "MemCluster", "name": "gone"}),
			wantErr: `cannot find MemCluster "team-a/gone"`},
		{name: "no reference", cluster: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2",
			"kind": "Cluster", "metadata": map[string]any{"name": "c1", "namespace": "team-a"}}}, wantErr: "spec.infrastructureRef"},
		{name: "Cluster not read", wantErr: `the Cluster was not read`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mc := &v1beta2.MemCluster{}
			err := scope.GetInfraCluster(t.Context(), r, scope.ClusterInfo{Name: "c1", Object: tt.cluster}, "MemCluster", mc)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, scope.ErrNoInfraCluster)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "infra", mc.Name)
		})
	}
}
