package scope_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/scope/internal/testtypes"
)

var env *providertest.Environment

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = testtypes.AddToScheme(s)
	return s
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scope-crds")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = fs.WalkDir(testtypes.CRDs, "crds", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := testtypes.CRDs.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(path)), b, 0o600)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		var code int
		providertestMain(m, &code, providertest.WithCRDPaths(dir), providertest.WithScheme(testScheme()))
		return code
	}()
	os.Exit(code)
}

// providertestMain starts the environment, runs the tests and stops it.
func providertestMain(m *testing.M, code *int, opts ...providertest.Option) {
	e, err := providertest.NewEnvironment(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		*code = 1
		return
	}
	env = e
	defer func() { _ = e.Stop() }()
	*code = m.Run()
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
