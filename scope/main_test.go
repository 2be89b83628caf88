package scope_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func testScheme() *runtime.Scheme { return testtypes.Scheme() }

func TestMain(m *testing.M) { testtypes.Main(m, &env) }

// newCluster creates a core Cluster of API version v.
func newCluster(t testing.TB, c client.Client, ns, name, v string, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/" + v, "kind": "Cluster",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     spec,
	}}
	if spec == nil {
		delete(u.Object, "spec")
	}
	if c != nil {
		require.NoError(t, c.Create(t.Context(), u))
	}
	return u
}

// newMachine creates a core Machine of API version v in cluster.
func newMachine(t testing.TB, c client.Client, ns, name, v, cluster string, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	if spec == nil {
		spec = map[string]any{}
	}
	spec["clusterName"] = cluster
	if _, ok := spec["bootstrap"]; !ok {
		spec["bootstrap"] = map[string]any{}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/" + v, "kind": "Machine",
		"metadata": map[string]any{"namespace": ns, "name": name, "labels": map[string]any{"cluster.x-k8s.io/cluster-name": cluster}},
		"spec":     spec,
	}}
	if c != nil {
		require.NoError(t, c.Create(t.Context(), u))
	}
	return u
}
