package capienv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/test/internal/capienv"
)

func TestCRDsFromTheModuleCarryKustomizeLabels(t *testing.T) {
	crds, err := capienv.CRDs("", capienv.Core, capienv.KubeadmBootstrap)
	require.NoError(t, err)
	byName := map[string]map[string]string{}
	for _, c := range crds {
		byName[c.Name] = c.Labels
	}
	require.Contains(t, byName, "clusters.cluster.x-k8s.io")
	require.Contains(t, byName, "machinedeployments.cluster.x-k8s.io")
	require.Contains(t, byName, "kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io")
	assert.Equal(t, map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2"},
		byName["kubeadmconfigs.bootstrap.cluster.x-k8s.io"], "core finds the bootstrap provider's API version through these labels")
}

func TestCRDsOfAForkedLayout(t *testing.T) {
	// A module with labels in both kustomize spellings, and a component without CRDs.
	root := t.TempDir()
	c := capienv.Component{Name: "x", ConfigDir: "x"}
	bases := c.CRDDir(root)
	require.NoError(t, os.MkdirAll(bases, 0o755))
	kustomization := "commonLabels:\n  a: \"1\"\nlabels:\n- pairs:\n    b: \"2\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bases, "..", "kustomization.yaml"), []byte(kustomization), 0o644))
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: xs.example.com\n  labels: {c: \"3\"}\n"
	require.NoError(t, os.WriteFile(filepath.Join(bases, "x.yaml"), []byte(crd), 0o644))

	crds, err := capienv.CRDs(root, c)
	require.NoError(t, err)
	require.Len(t, crds, 1)
	assert.Equal(t, map[string]string{"a": "1", "b": "2", "c": "3"}, crds[0].Labels)

	_, err = capienv.CRDs(root, capienv.Component{Name: "empty", ConfigDir: "empty"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"empty"`)

	require.NoError(t, os.WriteFile(filepath.Join(bases, "y.yaml"), []byte("kind: Service\nmetadata: {name: y}\n"), 0o644))
	_, err = capienv.CRDs(root, c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a CRD")
}
