package clusterctl_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/release/clusterctl"
)

// TestReadYAMLMetadataAsClusterctl: metadata.yaml is decoded as clusterctl decodes it into its Metadata type: a
// document without kind, or without apiVersion, gets clusterctl's and checks clean; another apiVersion is kept and
// reported.
func TestReadYAMLMetadataAsClusterctl(t *testing.T) {
	series := "releaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta2\n"
	tests := []struct {
		name, in string
		rules    []string
	}{
		{"no kind", "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\n" + series, nil},
		{"no apiVersion", "kind: Metadata\n" + series, nil},
		{"neither", series, nil},
		{"other apiVersion", "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha4\n" + series, []string{clusterctl.RuleMetadataAPIVersion}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := clusterctl.ReadYAML(strings.NewReader(tt.in), "release/metadata.yaml")
			require.NoError(t, err)
			assert.Equal(t, clusterctl.FileMetadata, clusterctl.Classify(f))
			findings, err := clusterctl.CheckFiles(f)
			require.NoError(t, err)
			var rules []string
			for _, fd := range findings {
				rules = append(rules, fd.Rule)
			}
			assert.Equal(t, tt.rules, rules)
		})
	}
	_, err := clusterctl.ReadYAML(strings.NewReader(series), "other.yaml")
	require.ErrorIs(t, err, clusterctl.ErrMalformed, "only metadata.yaml is decoded into clusterctl's type")
}

// TestReadYAMLTemplateAsClusterctl: a cluster template that is YAML only once clusterctl substitutes its variables
// is read and checked; the values checked and the variable checks see the original references.
func TestReadYAMLTemplateAsClusterctl(t *testing.T) {
	in := `apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata:
  name: ${CLUSTER_NAME}
  namespace: default
spec:
  infrastructureRef: {apiGroup: infrastructure.example.io, kind: MemCluster, name: "${CLUSTER_NAME}"}
---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta2
kind: KubeadmConfigTemplate
metadata:
  name: ${CLUSTER_NAME}-md-0
spec:
  template:
    spec:
      users:
      - name: root
        sshAuthorizedKeys: [${VM_SSH_KEYS}]
# ${BAD
`
	f, err := clusterctl.ReadYAML(strings.NewReader(in), "cluster-template.yaml")
	require.NoError(t, err)
	require.Len(t, f.Documents, 2)
	users, _, _ := unstructured.NestedSlice(f.Documents[1].Object.Object, "spec", "template", "spec", "users")
	require.Len(t, users, 1)
	assert.Equal(t, []any{"${VM_SSH_KEYS}"}, users[0].(map[string]any)["sshAuthorizedKeys"])
	findings, err := clusterctl.CheckFiles(f)
	require.NoError(t, err)
	var rules []string
	for _, fd := range findings {
		rules = append(rules, fd.Rule)
	}
	assert.Contains(t, rules, clusterctl.RuleTemplateNamespace, "namespace: default is still seen")
	assert.Contains(t, rules, clusterctl.RuleVariableSyntax, "the variable checks read the original text")
}
