package clusterctl_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"

	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/test/internal/capienv"
)

// TestGenerateMemcloudTopologyClusterWithClusterctl generates a cluster from memcloud's "topology" flavor the way
// `clusterctl generate cluster --infrastructure memcloud:v0.2.0 --flavor topology` does: from a clusterctl
// provider repository (a local one, laid out as a release: components, metadata, templates side by side).
// clusterctl adds memcloud's ClusterClass (clusterclass-memcloud.yaml) to the output because the namespace has
// none, puts every object in the target namespace, and the API server accepts them all: the class and its
// templates are created through Cluster API's CRDs and memcloud's webhooks, and the Cluster passes a
// server-side dry-run.
func TestGenerateMemcloudTopologyClusterWithClusterctl(t *testing.T) {
	ctx := context.Background()
	p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{WebhooksOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })
	ns, err := env.CreateNamespace(ctx, "topology")
	require.NoError(t, err)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())

	// A local clusterctl repository with memcloud's release files, and a clusterctl configuration naming it.
	dir, err := memcloudtest.ConfigDir()
	require.NoError(t, err)
	repo := filepath.Join(t.TempDir(), "infrastructure-memcloud", memcloudVersion)
	require.NoError(t, os.MkdirAll(repo, 0o755))
	for _, f := range []string{"infrastructure-components.yaml", "metadata.yaml", "templates/cluster-template-topology.yaml", "templates/clusterclass-memcloud.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(repo, filepath.Base(f)), b, 0o600))
	}
	config := filepath.Join(t.TempDir(), "clusterctl.yaml")
	require.NoError(t, os.WriteFile(config, []byte("providers:\n- name: memcloud\n  type: InfrastructureProvider\n  url: "+
		filepath.Join(repo, "infrastructure-components.yaml")+"\n"), 0o600))
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	kc, err := capienv.Kubeconfig(env.Config, "envtest")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(kubeconfig, kc, 0o600))

	c, err := clusterctl.New(ctx, config)
	require.NoError(t, err)
	cp, workers := int64(1), int64(2)
	tmpl, err := c.GetClusterTemplate(ctx, clusterctl.GetClusterTemplateOptions{
		Kubeconfig:               clusterctl.Kubeconfig{Path: kubeconfig},
		ProviderRepositorySource: &clusterctl.ProviderRepositorySourceOptions{InfrastructureProvider: "memcloud:" + memcloudVersion, Flavor: "topology"},
		ClusterName:              "from-class", TargetNamespace: ns, KubernetesVersion: "v1.35.0",
		ControlPlaneMachineCount: &cp, WorkerMachineCount: &workers,
	})
	require.NoError(t, err)

	kinds := map[string]int{}
	var cluster *unstructured.Unstructured
	for _, obj := range tmpl.Objs() {
		o := obj.DeepCopy()
		kinds[o.GetKind()]++
		assert.Equal(t, ns, o.GetNamespace(), "%s/%s is in the target namespace", o.GetKind(), o.GetName())
		if o.GetKind() == "Cluster" {
			cluster = o
			continue
		}
		require.NoError(t, env.Client.Create(ctx, o), "%s/%s is accepted by the API server", o.GetKind(), o.GetName())
	}
	assert.Equal(t, map[string]int{"ClusterClass": 1, "Cluster": 1, "MemClusterTemplate": 1, "MemMachineTemplate": 2,
		"KubeadmControlPlaneTemplate": 1, "KubeadmConfigTemplate": 1}, kinds, "clusterctl adds the ClusterClass file")
	require.NotNil(t, cluster)
	class, _, _ := unstructured.NestedString(cluster.Object, "spec", "topology", "classRef", "name")
	assert.Equal(t, "memcloud", class)
	mds, _, _ := unstructured.NestedSlice(cluster.Object, "spec", "topology", "workers", "machineDeployments")
	require.Len(t, mds, 1)
	assert.EqualValues(t, workers, mds[0].(map[string]any)["replicas"], "WORKER_MACHINE_COUNT")
	require.NoError(t, env.Client.Create(ctx, cluster, client.DryRunAll), "the Cluster is accepted by the API server")
}
