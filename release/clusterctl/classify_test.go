package clusterctl_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

func readYAML(t *testing.T, name, data string) *clusterctl.YAMLFile {
	t.Helper()
	f, err := clusterctl.ReadYAML(strings.NewReader(data), name)
	require.NoError(t, err)
	return f
}

const (
	docMetadata     = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries: []\n"
	docCRD          = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: foos.example.io}\n"
	docDeployment   = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: manager, namespace: x-system}\n"
	docCluster      = "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: c}\n"
	docClusterClass = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: ClusterClass\nmetadata: {name: c}\n"
	docOther        = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name, data string
		want       clusterctl.FileKind
	}{
		{"metadata.yaml", docOther, clusterctl.FileMetadata}, // the name wins
		{"release.yaml", docMetadata, clusterctl.FileMetadata},
		{"all.yaml", docCRD + "---\n" + docDeployment, clusterctl.FileComponents},
		{"example.yaml", docCluster, clusterctl.FileClusterTemplate},
		{"class.yaml", docClusterClass, clusterctl.FileClusterClass},
		{"class-and-cluster.yaml", docClusterClass + "---\n" + docCluster, clusterctl.FileClusterTemplate},
		{"other-class.yaml", "apiVersion: example.io/v1\nkind: ClusterClass\n", clusterctl.FileOther},
		{"clusterclass-prod.yaml", docOther, clusterctl.FileClusterClass}, // the name wins
		{"bases.yaml", docCRD + "---\n" + docCRD, clusterctl.FileCRDs},
		{"kustomization.yaml", docOther, clusterctl.FileOther},
		{"deployment.yaml", docDeployment, clusterctl.FileOther},
		{"other-cluster.yaml", "apiVersion: example.io/v1\nkind: Cluster\n", clusterctl.FileOther},
		{"other-metadata.yaml", "apiVersion: example.io/v1\nkind: Metadata\n", clusterctl.FileOther},
		{"empty.yaml", "# nothing\n", clusterctl.FileOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, clusterctl.Classify(readYAML(t, tt.name, tt.data)))
		})
	}
}

func TestFindUnclassified(t *testing.T) {
	got := clusterctl.FindUnclassified(
		readYAML(t, "metadata.yaml", docMetadata+"---\n"+docOther),
		readYAML(t, "kustomization.yaml", docOther),
		readYAML(t, "empty.yaml", "# nothing\n"),
		readYAML(t, "bases.yaml", docCRD),
	)
	var lines []string
	for _, u := range got {
		lines = append(lines, u.String())
	}
	assert.Equal(t, []string{
		"metadata.yaml:5: not checked: kustomize.config.k8s.io/v1beta1 Kustomization in a metadata file",
		"kustomization.yaml: not checked: not a clusterctl metadata, components, cluster template or ClusterClass file, nor CRDs",
		"empty.yaml: not checked: no Kubernetes objects",
	}, lines)
}
