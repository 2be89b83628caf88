package clusterctl_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

// listWithCRD is a v1 List that holds a ConfigMap and a CRD with no versions (rule crd.invalid).
const listWithCRD = `# objects as kubectl would get them
apiVersion: v1
kind: List
metadata: {}
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: first}
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: xclusters.infrastructure.x.io}
  spec: {group: infrastructure.x.io, names: {kind: XCluster, plural: xclusters, listKind: XClusterList}, scope: Namespaced, versions: []}
---
apiVersion: v1
kind: ConfigMapList
items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: second}}]
`

// TestReadYAMLExpandsLists: the items of a List document are read as documents of their own, at their own lines,
// so that every CRD in them is checked.
func TestReadYAMLExpandsLists(t *testing.T) {
	f, err := clusterctl.ReadYAML(strings.NewReader(listWithCRD), "in.yaml")
	require.NoError(t, err)
	require.Len(t, f.Documents, 3)
	want := []struct {
		ref  string
		line int
		list clusterctl.ListOrigin
	}{
		{"ConfigMap/first", 6, clusterctl.ListOrigin{Kind: "List", Line: 2, Items: 2}},
		{"CustomResourceDefinition/xclusters.infrastructure.x.io", 9, clusterctl.ListOrigin{Kind: "List", Line: 2, Items: 2}},
		{"ConfigMap/second", 16, clusterctl.ListOrigin{Kind: "ConfigMapList", Line: 14, Items: 1}},
	}
	for i, w := range want {
		d := f.Documents[i]
		assert.Equal(t, w.ref, d.ObjectRef())
		assert.Equal(t, w.line, d.Line, w.ref)
		assert.Equal(t, w.line, d.StartLine, w.ref)
		require.NotNil(t, d.List, w.ref)
		assert.Equal(t, w.list, *d.List, w.ref)
	}

	plain, err := clusterctl.ReadYAML(strings.NewReader("apiVersion: v1\nkind: A\nitems: [{apiVersion: v1, kind: B}]\n"), "in.yaml")
	require.NoError(t, err)
	require.Len(t, plain.Documents, 1, "a kind that is no List keeps its items")
	assert.Nil(t, plain.Documents[0].List)

	for _, bad := range []string{
		"apiVersion: v1\nkind: List\nitems:\n- 3\n",
		"apiVersion: v1\nkind: List\nitems:\n- {kind: A}\n",
	} {
		_, err := clusterctl.ReadYAML(strings.NewReader(bad), "in.yaml")
		require.ErrorIs(t, err, clusterctl.ErrMalformed, bad)
		assert.Contains(t, err.Error(), "in.yaml:4: malformed YAML: item 0 of List: ", bad)
	}
}

// TestCheckFilesChecksCRDsInList: a CRD inside a List is checked, and a List in a clusterctl release file is a
// violation of its own (clusterctl does not expand Lists).
func TestCheckFilesChecksCRDsInList(t *testing.T) {
	for name, wantList := range map[string]bool{"rel/infrastructure-components.yaml": true, "config/crds.yaml": false} {
		findings, err := clusterctl.CheckFiles(yamlFile(t, name, listWithCRD))
		require.NoError(t, err)
		var crd, list []string
		for _, f := range findings {
			switch {
			case strings.HasPrefix(f.Rule, "crd."):
				crd = append(crd, f.String())
			case f.Rule == clusterctl.RuleClusterctlList:
				list = append(list, f.String())
			}
		}
		assert.Contains(t, crd, name+":9: error: CustomResourceDefinition/xclusters.infrastructure.x.io: crd.invalid: spec.versions: the CRD has no versions")
		if wantList {
			assert.Equal(t, []string{
				name + ":2: error: clusterctl.list: a List of 2 objects: clusterctl applies each YAML document as one object and does not expand Lists; write each item as a document of its own",
				name + ":14: error: clusterctl.list: a ConfigMapList of 1 object: clusterctl applies each YAML document as one object and does not expand Lists; write each item as a document of its own",
			}, list)
		} else {
			assert.Empty(t, list)
		}
	}
}

// TestCheckFilesCapsFindingsPerFile: a file lists at most the limit of findings, then one finding that counts the
// rest exactly.
func TestCheckFilesCapsFindingsPerFile(t *testing.T) {
	// A Namespace without the provider label, no manager Deployment, and 150 unclosed "${": 152 findings.
	text := "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n" + strings.Repeat("# ${\n", 150)
	tests := map[string]struct {
		opts []clusterctl.ReadOption
		kept int
	}{
		"default":  {nil, clusterctl.DefaultMaxFindings},
		"option":   {[]clusterctl.ReadOption{clusterctl.WithMaxFindings(10)}, 10},
		"no limit": {[]clusterctl.ReadOption{clusterctl.WithMaxFindings(0)}, 152},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			f, err := clusterctl.ReadYAML(strings.NewReader(text), "rel/infrastructure-components.yaml", tt.opts...)
			require.NoError(t, err)
			other := yamlFile(t, "rel/metadata.yaml", "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\n")
			findings, err := clusterctl.CheckFiles(f, other)
			require.NoError(t, err)
			assert.Equal(t, 152+1, findings.Count(), "the count is exact: the metadata file has one finding")
			var mine clusterctl.Findings
			for _, fd := range findings {
				if fd.File == f.Name {
					mine = append(mine, fd)
				}
			}
			if tt.kept == 152 {
				assert.Len(t, mine, 152)
				assert.NotEqual(t, clusterctl.RuleMoreFindings, mine[len(mine)-1].Rule)
				return
			}
			require.Len(t, mine, tt.kept+1)
			last := mine[len(mine)-1]
			assert.Equal(t, clusterctl.RuleMoreFindings, last.Rule)
			assert.Equal(t, 152-tt.kept, last.Omitted)
			assert.Equal(t, "rel/infrastructure-components.yaml: and "+strconv.Itoa(152-tt.kept)+" more violations (only the first "+strconv.Itoa(tt.kept)+" of a file are listed)", last.String())
			all, err := clusterctl.ReadYAML(strings.NewReader(text), f.Name, clusterctl.WithMaxFindings(0))
			require.NoError(t, err)
			every, err := clusterctl.CheckFiles(all)
			require.NoError(t, err)
			assert.Equal(t, every[:tt.kept], mine[:tt.kept], "the first findings in sorted order are kept")
		})
	}
}
