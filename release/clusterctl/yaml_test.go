package clusterctl_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

func TestReadYAMLDocuments(t *testing.T) {
	in := `# leading comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  answer: "42"
--- # a comment after the marker

# only a comment in this document
---
---
apiVersion: v1
kind: Secret
metadata:
  name: second
  namespace: ns
stringData:
  enabled: yes
  count: 3
...
---
~
---


  apiVersion: v1
  kind: ConfigMap
`
	f, err := clusterctl.ReadYAML(strings.NewReader(in), "in.yaml")
	require.NoError(t, err)
	assert.Equal(t, "in.yaml", f.Name)
	assert.Equal(t, []byte(in), f.Data)
	require.Len(t, f.Documents, 3)

	first := f.Documents[0]
	assert.Equal(t, "in.yaml", first.File)
	assert.Equal(t, 2, first.Line, "line of the first field, after the comment")
	assert.Equal(t, 1, first.StartLine)
	assert.Equal(t, "in.yaml:2", first.Position())
	assert.Equal(t, "ConfigMap/first", first.ObjectRef())
	assert.Contains(t, string(first.Raw), "answer")

	second := f.Documents[1]
	assert.Equal(t, 13, second.Line)
	assert.Equal(t, "Secret/second", second.ObjectRef())
	assert.Equal(t, "ns", second.Object.GetNamespace())
	// Values are decoded as kubectl decodes them: YAML 1.1 booleans, int64 numbers.
	assert.Equal(t, true, second.Object.Object["stringData"].(map[string]any)["enabled"])
	assert.Equal(t, int64(3), second.Object.Object["stringData"].(map[string]any)["count"])

	third := f.Documents[2]
	assert.Equal(t, 27, third.Line, "indented document")
	assert.Equal(t, "ConfigMap", third.ObjectRef(), "no name: kind alone")
}

func TestReadYAMLCRLFAndNoTrailingNewline(t *testing.T) {
	in := "apiVersion: v1\r\nkind: A\r\n---\r\napiVersion: v1\r\nkind: B"
	f, err := clusterctl.ReadYAML(strings.NewReader(in), "crlf.yaml")
	require.NoError(t, err)
	require.Len(t, f.Documents, 2)
	assert.Equal(t, "B", f.Documents[1].Object.GetKind())
	assert.Equal(t, 4, f.Documents[1].Line)
}

func TestReadYAMLEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "# nothing\n", "---\n---\n", "...\n"} {
		f, err := clusterctl.ReadYAML(strings.NewReader(in), "empty.yaml")
		require.NoError(t, err, "%q", in)
		assert.Empty(t, f.Documents, "%q", in)
	}
}

func TestReadYAMLErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the whole error message
	}{
		{"syntax error with line", "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\nmetadata: {name: [}\n",
			"x.yaml:6: malformed YAML: did not find expected node content"},
		{"tab indentation", "apiVersion: v1\nkind: A\nmetadata:\n\tname: a\n",
			"x.yaml:4: malformed YAML: found character that cannot start any token"},
		{"list document", "# c\n- a\n- b\n", "x.yaml:2: malformed YAML: document is a YAML list, want a map with apiVersion and kind"},
		{"scalar document", "hello\n", `x.yaml:1: malformed YAML: document is the scalar "hello", want a map with apiVersion and kind`},
		{"alias document", "*a\n", "x.yaml:1: malformed YAML: unknown anchor 'a' referenced"},
		{"no apiVersion", "kind: A\n", "x.yaml:1: malformed YAML: document has no apiVersion"},
		{"no kind", "apiVersion: v1\nkind: A\n---\napiVersion: v1\nmetadata: {}\n", "x.yaml:4: malformed YAML: document has no kind"},
		{"kind not a string", "apiVersion: v1\nkind: [A]\n", "x.yaml:1: malformed YAML: kind is a array, want a string"},
		{"empty kind", "apiVersion: v1\nkind: ''\n", "x.yaml:1: malformed YAML: kind is empty"},
		{"metadata a list", "apiVersion: v1\nkind: A\nmetadata: [a]\n", "x.yaml:1: malformed YAML: metadata is a array, want a map"},
		{"duplicate nested key", "apiVersion: v1\nkind: A\nmetadata:\n  labels:\n    a: b\n  name: x\n  labels:\n    c: d\n",
			`x.yaml:7: malformed YAML: mapping key "labels" is repeated (first at line 4): the later value would silently win`},
		{"parser error on later line", "apiVersion: v1\nkind: A\nspec:\n  a: b\n - c\n",
			"x.yaml:5: malformed YAML: did not find expected key"},
		{"content after marker", "apiVersion: v1\nkind: A\n--- kind: B\n",
			`x.yaml:3: malformed YAML: only a comment may follow the document marker "---", found "kind: B"`},
		{"duplicate key", "apiVersion: v1\nkind: A\nkind: B\n", `x.yaml:3: malformed YAML: mapping key "kind" is repeated (first at line 2): the later value would silently win`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := clusterctl.ReadYAML(strings.NewReader(tt.in), "x.yaml")
			require.Error(t, err)
			assert.Nil(t, f)
			assert.ErrorIs(t, err, clusterctl.ErrMalformed)
			assert.Equal(t, tt.want, err.Error())
			var pe *clusterctl.PositionError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "x.yaml", pe.File)
		})
	}
}

func TestReadYAMLTooLarge(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\n"
	_, err := clusterctl.ReadYAML(strings.NewReader(in), "big.yaml", clusterctl.WithMaxBytes(int64(len(in)-1)))
	require.ErrorIs(t, err, clusterctl.ErrTooLarge)
	assert.NotErrorIs(t, err, clusterctl.ErrMalformed)
	assert.Equal(t, "big.yaml: YAML input too large: more than 30 bytes", err.Error())

	f, err := clusterctl.ReadYAML(strings.NewReader(in), "fits.yaml", clusterctl.WithMaxBytes(int64(len(in))))
	require.NoError(t, err)
	assert.Len(t, f.Documents, 1)
}

func TestReadYAMLDefaultLimit(t *testing.T) {
	big := bytes.Repeat([]byte("#"), int(clusterctl.DefaultMaxYAMLBytes)+1)
	_, err := clusterctl.ReadYAML(bytes.NewReader(big), "huge.yaml")
	assert.ErrorIs(t, err, clusterctl.ErrTooLarge)
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadYAMLReadError(t *testing.T) {
	_, err := clusterctl.ReadYAML(failingReader{}, "r.yaml")
	require.Error(t, err)
	assert.Equal(t, "r.yaml: cannot read: disk on fire", err.Error())
}

func TestReadYAMLFile(t *testing.T) {
	f, err := clusterctl.ReadYAMLFile(filepath.Join("testdata", "good", "v1beta2", "metadata.yaml"))
	require.NoError(t, err)
	require.Len(t, f.Documents, 1)
	assert.Equal(t, "Metadata", f.Documents[0].Object.GetKind())

	_, err = clusterctl.ReadYAMLFile(filepath.Join("testdata", "does-not-exist.yaml"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "testdata/does-not-exist.yaml: cannot open file:")
}

func TestReadYAMLMalformedTestdata(t *testing.T) {
	tests := map[string]string{
		"syntax.yaml":            "syntax.yaml:12: malformed YAML: found unexpected end of stream",
		"list.yaml":              "list.yaml:2: malformed YAML: document is a YAML list",
		"scalar.yaml":            "scalar.yaml:1: malformed YAML: document is the scalar",
		"no-kind.yaml":           "no-kind.yaml:9: malformed YAML: document has no kind",
		"separator-garbage.yaml": "separator-garbage.yaml:5: malformed YAML: only a comment may follow",
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			_, err := clusterctl.ReadYAMLFile(filepath.Join("testdata", "malformed", file))
			require.ErrorIs(t, err, clusterctl.ErrMalformed)
			assert.Contains(t, err.Error(), want)
		})
	}
}

func TestPositionErrorWithoutLine(t *testing.T) {
	err := &clusterctl.PositionError{File: "a.yaml", Err: clusterctl.ErrMalformed}
	assert.Equal(t, "a.yaml: malformed YAML", err.Error())
	assert.ErrorIs(t, err, clusterctl.ErrMalformed)
}

func BenchmarkReadYAML(b *testing.B) {
	data, err := clusterctl.ReadYAMLFile(filepath.Join("testdata", "good", "v1beta2", "infrastructure-components.yaml"))
	require.NoError(b, err)
	b.SetBytes(int64(len(data.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := clusterctl.ReadYAML(bytes.NewReader(data.Data), "c.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
