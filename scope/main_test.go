package scope_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/providertest"
)

var env *providertest.Environment

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = testtypes.AddToScheme(s)
	return s
}

func TestMain(m *testing.M) {
	crds, err := testtypes.CRDObjects()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	providertest.Main(m, &env, providertest.WithCRDs(crds...), providertest.WithScheme(testScheme()))
}

var nsCounter atomic.Int64

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("scope-%d", nsCounter.Add(1))}}
	require.NoError(t, env.Client.Create(context.Background(), ns))
	return ns.Name
}

// newCluster creates a core Cluster of API version v.
func newCluster(t *testing.T, c client.Client, ns, name, v string, spec map[string]any) *unstructured.Unstructured {
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
		require.NoError(t, c.Create(context.Background(), u))
	}
	return u
}

// newMachine creates a core Machine of API version v in cluster.
func newMachine(t *testing.T, c client.Client, ns, name, v, cluster string, spec map[string]any) *unstructured.Unstructured {
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
		require.NoError(t, c.Create(context.Background(), u))
	}
	return u
}
