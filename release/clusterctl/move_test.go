package clusterctl_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// crdDoc returns a CRD document of kind in group infrastructure.example.io with the given scope and labels.
func crdDoc(kind, plural, scope, labels string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.infrastructure.example.io
  labels: {` + labels + `}
spec:
  group: infrastructure.example.io
  names: {kind: ` + kind + `, listKind: ` + kind + `List, plural: ` + plural + `}
  scope: ` + scope + `
  versions: [{name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`
}

func TestCheckFilesMoveLabel(t *testing.T) {
	tests := []struct {
		name string
		crd  string
		want bool // a crd.move-label violation
	}{
		{"cluster-scoped, no label", crdDoc("MemClusterIdentity", "memclusteridentities", "Cluster", ""), true},
		{"cluster-scoped, other labels only", crdDoc("MemClusterIdentity", "memclusteridentities", "Cluster", `clusterctl.cluster.x-k8s.io: ""`), true},
		{"cluster-scoped, move-hierarchy", crdDoc("MemClusterIdentity", "memclusteridentities", "Cluster", `clusterctl.cluster.x-k8s.io/move-hierarchy: ""`), false},
		{"cluster-scoped, move", crdDoc("MemRegion", "memregions", "Cluster", `clusterctl.cluster.x-k8s.io/move: "true"`), false},
		{"namespaced", crdDoc("MemVPC", "memvpcs", "Namespaced", ""), false},
		// A contract kind must be namespaced: crd.scope says so, and crd.move-label does not repeat it.
		{"cluster-scoped contract kind", crdDoc("MemCluster", "memclusters", "Cluster", "cluster.x-k8s.io/v1beta2: v1alpha1"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The rule applies to a CRD file of its own and to the same CRD in a components file.
			for _, name := range []string{"config/crd/bases/crd.yaml", "config/infrastructure-components.yaml"} {
				findings, err := clusterctl.CheckFiles(yamlFile(t, name, tt.crd))
				require.NoError(t, err)
				vs := findings.Violations()
				assert.Equal(t, tt.want, vs.Has(clusterctl.RuleCRDMoveLabel), "%s:\n%s", name, vs)
				if tt.want {
					moves := vs.Filter(func(v lint.Violation) bool { return v.Rule == clusterctl.RuleCRDMoveLabel })
					require.Len(t, moves, 1)
					assert.Equal(t, "metadata.labels", moves[0].Path)
					assert.Equal(t, "CustomResourceDefinition/memclusteridentities.infrastructure.example.io", moves[0].Object)
				}
				if tt.name == "cluster-scoped contract kind" {
					assert.True(t, vs.Has(lint.RuleCRDScope))
				}
			}
		})
	}
}

func TestCheckFilesMoveLabelMessage(t *testing.T) {
	findings, err := clusterctl.CheckFiles(readTree(t, "bad/crds")...)
	require.NoError(t, err)
	var got []string
	for _, f := range findings {
		if f.Rule == clusterctl.RuleCRDMoveLabel {
			got = append(got, f.String())
		}
	}
	assert.Equal(t, []string{`testdata/bad/crds/cluster-scoped-no-move-label.yaml:4: error: CustomResourceDefinition/memregions.infrastructure.example.io: crd.move-label: metadata.labels: ` +
		`cluster-scoped kind MemRegion has neither the "clusterctl.cluster.x-k8s.io/move" nor the "clusterctl.cluster.x-k8s.io/move-hierarchy" label: ` +
		`no namespaced Cluster can own its objects, so clusterctl move would leave them behind; ` +
		`label the CRD, e.g. with the marker +kubebuilder:metadata:labels="clusterctl.cluster.x-k8s.io/move-hierarchy=" on the type (move-hierarchy moves the objects they own too)`}, got)
}
