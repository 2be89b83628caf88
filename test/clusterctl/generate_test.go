package clusterctl_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"

	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// TestGenerateMemcloudClusterWithClusterctl generates a cluster from memcloud's cluster-template.yaml with the
// clusterctl library, as `clusterctl generate cluster --from` does: clusterctl finds the template's variables,
// fills them from its options and the template's defaults, and every object it produces is accepted by the API
// server (a server-side dry-run through Cluster API's CRD schemas and memcloud's admission webhooks).
func TestGenerateMemcloudClusterWithClusterctl(t *testing.T) {
	ctx := context.Background()
	p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{WebhooksOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })
	ns, err := env.CreateNamespace(ctx, "generated")
	require.NoError(t, err)
	dir, err := memcloudtest.ConfigDir()
	require.NoError(t, err)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // clusterctl's own configuration folder, empty

	c, err := clusterctl.New(ctx, "")
	require.NoError(t, err)
	cp, workers := int64(3), int64(2)
	tmpl, err := c.GetClusterTemplate(ctx, clusterctl.GetClusterTemplateOptions{
		URLSource:   &clusterctl.URLSourceOptions{URL: filepath.Join(dir, "templates", "cluster-template.yaml")},
		ClusterName: "generated", TargetNamespace: ns, KubernetesVersion: "v1.35.0",
		ControlPlaneMachineCount: &cp, WorkerMachineCount: &workers,
	})
	require.NoError(t, err)
	assert.Subset(t, tmpl.Variables(), []string{"CLUSTER_NAME", "NAMESPACE", "KUBERNETES_VERSION", "MEMCLOUD_NETWORK_CIDR"})
	assert.Equal(t, "10.0.0.0/16", *tmpl.VariableMap()["MEMCLOUD_NETWORK_CIDR"], "the template's default")

	kinds := map[string]int{}
	for _, obj := range tmpl.Objs() {
		o := obj.DeepCopy()
		assert.Equal(t, ns, o.GetNamespace(), "%s/%s is in the target namespace", o.GetKind(), o.GetName())
		require.NoError(t, env.Client.Create(ctx, o, client.DryRunAll), "%s/%s is accepted by the API server", o.GetKind(), o.GetName())
		kinds[o.GetKind()]++
		switch o.GetKind() {
		case "KubeadmControlPlane":
			replicas, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
			assert.Equal(t, cp, replicas)
		case "MachineDeployment":
			replicas, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
			assert.Equal(t, workers, replicas)
		case "MemCluster":
			cidr, _, _ := unstructured.NestedString(o.Object, "spec", "network", "cidr")
			assert.Equal(t, "10.0.0.0/16", cidr)
		}
	}
	assert.Equal(t, map[string]int{"Cluster": 1, "MemCluster": 1, "MemMachineTemplate": 2, "KubeadmControlPlane": 1,
		"KubeadmConfigTemplate": 1, "MachineDeployment": 1}, kinds)
}
