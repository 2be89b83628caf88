package services_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/scope"
)

func TestMemClusterLookup(t *testing.T) {
	sch := runtime.NewScheme()
	require.NoError(t, v1beta2.AddToScheme(sch))
	mc := &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mc"}}
	mc.Status.Resources = map[string]string{
		services.SubnetKey("controlplane"): "subnet-1", services.SubnetKey("worker"): "subnet-2",
		services.KeySecurityGroup: "sg-1", services.KeyLoadBalancer: "lb-1",
	}
	r := fake.NewClientBuilder().WithScheme(sch).WithObjects(mc).Build()
	cluster := func(kind, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
			"metadata": map[string]any{"name": "c1", "namespace": "ns"},
			"spec":     map[string]any{"infrastructureRef": map[string]any{"apiGroup": v1beta2.GroupName, "kind": kind, "name": name}}}}
	}
	tests := []struct {
		name    string
		cluster *unstructured.Unstructured
		want    services.ClusterNetwork
		wantErr string
	}{
		{name: "found", cluster: cluster("MemCluster", "mc"), want: services.ClusterNetwork{
			SubnetIDs:       map[v1beta2.SubnetRole]string{v1beta2.SubnetRoleControlPlane: "subnet-1", v1beta2.SubnetRoleWorker: "subnet-2"},
			SecurityGroupID: "sg-1", LoadBalancerID: "lb-1"}},
		{name: "absent", cluster: cluster("MemCluster", "gone"), wantErr: `cannot find MemCluster "ns/gone": no infrastructure cluster`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := services.MemClusterLookup(r).ClusterNetwork(t.Context(), "ns", scope.ClusterInfo{Name: "c1", Object: tt.cluster})
			if tt.wantErr != "" {
				require.ErrorIs(t, err, services.ErrNoMemCluster)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
