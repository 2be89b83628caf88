package yamlfile

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv3 "go.yaml.in/yaml/v3"
)

// TestNodeBoundCoversParsedNodes: the bound Read checks before parsing is never below the nodes the parser makes,
// for the constructs that make the most nodes per byte and for every test file.
func TestNodeBoundCoversParsedNodes(t *testing.T) {
	inputs := map[string]string{
		"flow map of keys":    "{a, b, c}",
		"nested flow maps":    "{{{{a}}}}",
		"flow maps in a list": "[{a},{b},{c: d},{e, f}]",
		"nested lists":        "[[[[[]]]]]",
		"complex keys":        "? [a, b]\n: {c}\n? d\n",
		"block nulls":         "a:\nb:\n- \n-\n- - - x\n",
		"anchors and tags":    "a: &x !!str\nb: *x\nc: !!map {}\n",
		"plain multi-line":    "a: b c\n  d e\n  f\n",
		"json style":          `{"a":[1,2,{"b":null}],"c":"d"}`,
		"empty":               "",
	}
	files, err := filepath.Glob("../../release/clusterctl/testdata/*/*.yaml")
	require.NoError(t, err)
	more, err := filepath.Glob("../../release/clusterctl/testdata/*/*/*.yaml")
	require.NoError(t, err)
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		inputs[f] = string(data)
	}
	for name, in := range inputs {
		chunks, err := splitDocuments([]byte(in), math.MaxInt)
		if err != nil {
			continue // refused before parsing
		}
		nodes := int64(0)
		for _, c := range chunks {
			var root yamlv3.Node
			if yamlv3.Unmarshal(c.text, &root) != nil {
				continue
			}
			e := &expansion{maxBytes: math.MaxInt64, maxNodes: math.MaxInt64}
			require.NoError(t, e.add(&root, c.line), name)
			nodes += e.nodes - 1 // the document node is no node of the input
		}
		_, _, bound := nodeBound([]byte(in))
		assert.LessOrEqual(t, nodes, bound, name)
	}
}
