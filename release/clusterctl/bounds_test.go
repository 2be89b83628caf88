package clusterctl_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

// aliasBomb is a ConfigMap whose one string of size bytes is referenced refs times by aliases.
func aliasBomb(size, refs int) []byte {
	return []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  a: &a " + strings.Repeat("x", size) +
		"\n  b: [" + strings.Repeat("*a, ", refs-1) + "*a]\n")
}

// TestReadYAMLRefusesUnboundedInput: every bound of ReadYAML refuses input beyond it with an error that wraps
// ErrTooLarge and names the file, the line (where there is one) and the bound, before the input is decoded.
func TestReadYAMLRefusesUnboundedInput(t *testing.T) {
	tests := map[string]struct {
		data []byte
		opts []clusterctl.ReadOption
		want string
	}{
		"raw bytes": {
			data: bytes.Repeat([]byte("#\n"), 600),
			opts: []clusterctl.ReadOption{clusterctl.WithMaxBytes(1000)},
			want: "in.yaml: YAML input too large: more than 1000 bytes",
		},
		"bytes after alias expansion": {
			data: aliasBomb(64<<10, 100),
			opts: []clusterctl.ReadOption{clusterctl.WithMaxBytes(1 << 20)},
			want: "in.yaml:6: YAML input too large: more than 1048576 bytes of values after YAML aliases are expanded",
		},
		"bytes after alias expansion, bound of its own": {
			data: aliasBomb(1000, 20),
			opts: []clusterctl.ReadOption{clusterctl.WithMaxExpandedBytes(10000)},
			want: "in.yaml:6: YAML input too large: more than 10000 bytes of values after YAML aliases are expanded",
		},
		"nested aliases": {
			data: []byte("apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" +
				"l1: &l1 [*l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0]\nl2: &l2 [*l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1]\n" +
				"l3: [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]\n"),
			opts: []clusterctl.ReadOption{clusterctl.WithMaxNodes(5000)},
			want: "in.yaml:9: YAML input too large: more than 5000 YAML nodes after YAML aliases are expanded",
		},
		"nodes before parsing": {
			data: []byte("apiVersion: v1\nkind: A\nl: [" + strings.Repeat("1,", 3000) + "1]\n"),
			opts: []clusterctl.ReadOption{clusterctl.WithMaxNodes(5000)},
			want: `in.yaml: YAML input too large: its 4 lines and 3004 indicators ("-", "?", ":", ",", "[", "{", "*") allow up to 6012 YAML nodes, more than the limit of 5000 nodes`,
		},
		"documents": {
			data: bytes.Repeat([]byte("apiVersion: v1\nkind: A\n---\n"), 11),
			opts: []clusterctl.ReadOption{clusterctl.WithMaxDocuments(10)},
			want: "in.yaml:31: YAML input too large: more than 10 YAML documents",
		},
		"documents with only a comment count": {
			data: bytes.Repeat([]byte("#\n---\n"), 20),
			opts: []clusterctl.ReadOption{clusterctl.WithMaxDocuments(10)},
			want: "in.yaml:21: YAML input too large: more than 10 YAML documents",
		},
		"items of a List count as documents": {
			data: []byte("apiVersion: v1\nkind: List\nitems:\n" + strings.Repeat("- {apiVersion: v1, kind: A}\n", 11)),
			opts: []clusterctl.ReadOption{clusterctl.WithMaxDocuments(10)},
			want: "in.yaml:14: YAML input too large: more than 10 YAML documents (the items of a List count as documents)",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := clusterctl.ReadYAML(bytes.NewReader(tt.data), "in.yaml", tt.opts...)
			require.ErrorIs(t, err, clusterctl.ErrTooLarge)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestReadYAMLBoundsFitRealInput: input right at each bound is read, and the largest bounds do not overflow.
func TestReadYAMLBoundsFitRealInput(t *testing.T) {
	data := aliasBomb(1000, 9) // 10 × 1000 bytes of values, plus the keys
	f, err := clusterctl.ReadYAML(bytes.NewReader(data), "in.yaml", clusterctl.WithMaxExpandedBytes(10100))
	require.NoError(t, err)
	require.Len(t, f.Documents, 1)

	f, err = clusterctl.ReadYAML(bytes.NewReader(data), "in.yaml", clusterctl.WithMaxBytes(math.MaxInt64), clusterctl.WithMaxExpandedBytes(math.MaxInt64),
		clusterctl.WithMaxNodes(math.MaxInt64), clusterctl.WithMaxDocuments(math.MaxInt))
	require.NoError(t, err, "the largest limits do not overflow into reading nothing")
	require.Len(t, f.Documents, 1)

	ten := bytes.Repeat([]byte("apiVersion: v1\nkind: A\n---\n"), 10)
	f, err = clusterctl.ReadYAML(bytes.NewReader(ten), "in.yaml", clusterctl.WithMaxDocuments(10))
	require.NoError(t, err, "blank documents do not count")
	assert.Len(t, f.Documents, 10)
	_, err = clusterctl.ReadYAML(bytes.NewReader(bytes.Repeat([]byte("---\n"), 1000)), "in.yaml", clusterctl.WithMaxDocuments(10))
	require.NoError(t, err)
}

// TestReadYAMLRefusesAliasCycle: an alias to a node that holds it is malformed, not an endless count.
func TestReadYAMLRefusesAliasCycle(t *testing.T) {
	_, err := clusterctl.ReadYAML(strings.NewReader("apiVersion: v1\nkind: A\na: &a [x, *a]\n"), "in.yaml")
	require.ErrorIs(t, err, clusterctl.ErrMalformed)
	assert.Contains(t, err.Error(), "in.yaml:3: ")
}

// TestReadYAMLFileRefusesLargeFileBeforeReading: a file larger than the limit is refused by its size.
func TestReadYAMLFileRefusesLargeFileBeforeReading(t *testing.T) {
	name := filepath.Join(t.TempDir(), "big.yaml")
	require.NoError(t, os.WriteFile(name, bytes.Repeat([]byte("#\n"), 100), 0o600))
	_, err := clusterctl.ReadYAMLFile(name, clusterctl.WithMaxBytes(100))
	require.ErrorIs(t, err, clusterctl.ErrTooLarge)
	assert.Equal(t, name+": YAML input too large: 200 bytes, more than 100 bytes", err.Error())
}
