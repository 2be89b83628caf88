package testenv_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) { testenv.Main(m, &env, testenv.WithCRDPaths("../testdata/crds")) }

func TestNamespaceIsFreshPerCall(t *testing.T) {
	a, b := env.Namespace(t, "fresh"), env.Namespace(t, "fresh")
	assert.NotEqual(t, a, b)
	for _, ns := range []string{a, b} {
		assert.True(t, strings.HasPrefix(ns, "fresh-"), ns)
		require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Name: ns}, &corev1.Namespace{}))
	}
}

func TestEnvironmentServesBothCoreAPIVersions(t *testing.T) {
	ctx := t.Context()
	assert.Equal(t, "capkit minimal CRDs", env.CAPICRDSource)
	ns := env.Namespace(t, "env")

	for _, version := range []string{"v1beta1", "v1beta2"} {
		c := &unstructured.Unstructured{}
		c.SetAPIVersion("cluster.x-k8s.io/" + version)
		c.SetKind("Cluster")
		c.SetNamespace(ns)
		c.SetName("c-" + version)
		require.NoError(t, unstructured.SetNestedField(c.Object, true, "spec", "paused"))
		require.NoError(t, env.Client.Create(ctx, c), version)

		require.NoError(t, unstructured.SetNestedField(c.Object, true, "status", "initialization", "infrastructureProvisioned"))
		require.NoError(t, env.Client.Status().Update(ctx, c), version)

		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(c.GroupVersionKind())
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(c), got))
		paused, _, _ := unstructured.NestedBool(got.Object, "spec", "paused")
		provisioned, _, _ := unstructured.NestedBool(got.Object, "status", "initialization", "infrastructureProvisioned")
		assert.True(t, paused, version)
		assert.True(t, provisioned, "status written through the status subresource must persist (%s)", version)
	}
}

func TestCAPIModuleDirFollowsReplace(t *testing.T) {
	// A provider module that replaces sigs.k8s.io/cluster-api with a local fork: the CRDs must come from the fork.
	root := t.TempDir()
	fork := filepath.Join(root, "fork")
	require.NoError(t, os.MkdirAll(filepath.Join(fork, "config", "crd", "bases"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(fork, "go.mod"), []byte("module sigs.k8s.io/cluster-api\n\ngo 1.26\n"), 0o644))
	provider := filepath.Join(root, "provider")
	require.NoError(t, os.MkdirAll(provider, 0o755))
	gomod := "module example.com/provider\n\ngo 1.26\n\nrequire sigs.k8s.io/cluster-api v1.14.2\n\nreplace sigs.k8s.io/cluster-api => ../fork\n"
	require.NoError(t, os.WriteFile(filepath.Join(provider, "go.mod"), []byte(gomod), 0o644))

	dir, err := testenv.CAPIModuleDir(provider)
	require.NoError(t, err)
	assert.Equal(t, fork, dir)
}

func TestCAPIModuleDirMissingModule(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/none\n\ngo 1.26\n"), 0o644))
	_, err := testenv.CAPIModuleDir(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sigs.k8s.io/cluster-api")
}

func TestMinimalCAPICRDs(t *testing.T) {
	crds, err := testenv.MinimalCAPICRDs()
	require.NoError(t, err)
	names := []string{}
	for _, c := range crds {
		names = append(names, c.Name)
		require.Len(t, c.Spec.Versions, 2)
	}
	assert.ElementsMatch(t, []string{"clusters.cluster.x-k8s.io", "machines.cluster.x-k8s.io", "machinepools.cluster.x-k8s.io"}, names)
}

func TestAssetsDirNamesTheMakeTarget(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", t.TempDir())
	t.Setenv("CAPKIT_CACHE", t.TempDir())
	_, err := testenv.AssetsDir()
	require.ErrorIs(t, err, testenv.ErrNoAssets)
	assert.Contains(t, err.Error(), "make envtest")
}

func TestCAPICRDLayouts(t *testing.T) {
	for _, rel := range []string{"core/config/crd/bases", "config/crd/bases"} {
		t.Run(rel, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, rel)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cluster.x-k8s.io_clusters.yaml"), []byte("{}"), 0o644))
			got, ok := testenv.CAPICRDDirIn(root)
			require.True(t, ok)
			assert.Equal(t, dir, got)
		})
	}
	_, ok := testenv.CAPICRDDirIn(t.TempDir())
	assert.False(t, ok, "a tree without CRDs must not be used")
}

func TestWithCAPICRDs(t *testing.T) {
	// A provider whose build list has no Cluster API (or wants another version of its CRDs) names a folder.
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("crds", "cluster.x-k8s.io_clusters.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cluster.x-k8s.io_clusters.yaml"), b, 0o644))

	e, err := testenv.NewEnvironment(testenv.WithCAPICRDs(dir))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Stop()) })
	assert.Equal(t, dir, e.CAPICRDSource)

	crd := &apiextensionsv1.CustomResourceDefinition{}
	ctx := t.Context()
	require.NoError(t, e.Client.Get(ctx, client.ObjectKey{Name: "clusters.cluster.x-k8s.io"}, crd), "the folder's CRD is installed")
	err = e.Client.Get(ctx, client.ObjectKey{Name: "machines.cluster.x-k8s.io"}, crd)
	assert.True(t, apierrors.IsNotFound(err), "only the folder's CRDs are installed, not capkit's minimal ones: %v", err)

	_, err = testenv.NewEnvironment(testenv.WithCAPICRDs(filepath.Join(dir, "missing")))
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), filepath.Join(dir, "missing"))
}
