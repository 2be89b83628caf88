package yamlfile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubstituteVariablesForms: the references clusterctl substitutes (drone/envsubst after its "${ VAR }"
// rewrite) are replaced, and what it leaves as it is, or fails on, is left as it is.
func TestSubstituteVariablesForms(t *testing.T) {
	tests := []struct {
		in   string
		refs []string // the references replaced, in order; nil when none is
	}{
		{"a: ${VAR}", []string{"${VAR}"}},
		{"a: ${VAR:=default}", []string{"${VAR:=default}"}},
		{"a: ${VAR=default}", []string{"${VAR=default}"}},
		{"a: ${VAR:-default}", []string{"${VAR:-default}"}},
		{"a: ${VAR-default}", nil}, // clusterctl fails: "missing closing brace"
		{"a: $VAR", nil},           // clusterctl leaves it as it is
		{"a: $${VAR}", nil},        // "$$" is a literal "$"
		{"a: ${ VAR }", []string{"${ VAR }"}},
		{"a: ${ VAR}", []string{"${ VAR}"}},
		{"a: ${VAR }", []string{"${VAR }"}},
		{"a: ${ A:=b }", nil},
		{"a: ${#VAR}", []string{"${#VAR}"}},
		{"a: ${VAR^^} ${VAR,,} ${VAR/x/y} ${VAR:0:3} ${VAR%.*} ${VAR#v}", []string{"${VAR^^}", "${VAR,,}", "${VAR/x/y}", "${VAR:0:3}", "${VAR%.*}", "${VAR#v}"}},
		{"a: ${A:=${B:=c}}", []string{"${A:=${B:=c}}"}},
		{"a: ${A:=a}b}", []string{"${A:=a}"}},
		{"a: ${A:=x\ny}", nil},                       // spans lines: left, so that lines keep their numbers
		{"a: ${A:=$${B}}x", []string{"${A:=$${B}}"}}, // drone/envsubst: "$x"
		{"a: ${A:=$$}x}", []string{"${A:=$$}"}},      // drone/envsubst: "$$x}"
		{`a: ${A:=\}}`, []string{`${A:=\}`}},
		{"a: ${}", nil},
		{"a: ${A", nil},
		{"a: ${A.B}", nil},
		{"a: ${VAR} ${VAR}", []string{"${VAR}"}},
		{"a: b", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			out, p := substituteVariables([]byte(tt.in))
			if tt.refs == nil {
				assert.Nil(t, p)
				assert.Nil(t, out)
				return
			}
			require.NotNil(t, p)
			assert.Equal(t, tt.refs, p.refs)
			assert.NotContains(t, string(out), "${"+strings.TrimPrefix(tt.refs[0], "${"), "the reference is replaced")
			assert.Equal(t, tt.in, p.restore(string(out)), "every placeholder stands for its reference")
		})
	}
}

// TestReadWithVariables: a template that is YAML only once its variables are substituted is read, the decoded values
// hold the references, and the lines, Data and Raw are those of the original text.
func TestReadWithVariables(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"${CLUSTER_NAME}-cm\", namespace: ${NAMESPACE}}\n" +
		"data:\n  keys: [${VM_SSH_KEYS}]\n  ${KEY}: ${VALUE:=x}\n  script: echo $HOME $$x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: ${CLUSTER_NAME}}\n"
	_, err := Read(strings.NewReader(in), "t.yaml")
	require.ErrorIs(t, err, ErrMalformed, "without substitution the flow sequence is no YAML")

	f, err := Read(strings.NewReader(in), "t.yaml", WithVariables())
	require.NoError(t, err)
	require.Len(t, f.Documents, 2)
	assert.Equal(t, in, string(f.Data))
	cm := f.Documents[0]
	assert.Equal(t, "${CLUSTER_NAME}-cm", cm.Object.GetName())
	assert.Equal(t, "${NAMESPACE}", cm.Object.GetNamespace())
	assert.Equal(t, map[string]any{"keys": []any{"${VM_SSH_KEYS}"}, "${KEY}": "${VALUE:=x}", "script": "echo $HOME $$x"}, cm.Object.Object["data"])
	assert.True(t, bytes.HasPrefix(cm.Raw, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"${CLUSTER_NAME}-cm\"")), "Raw is the original text")
	secret := f.Documents[1]
	assert.Equal(t, 9, secret.Line)
	assert.Equal(t, "${CLUSTER_NAME}", secret.Object.GetName())

	_, err = Read(strings.NewReader("apiVersion: v1\nkind: A\nx: [${A}\n"), "bad.yaml", WithVariables())
	require.ErrorIs(t, err, ErrMalformed, "malformed even after substitution")
	assert.NotContains(t, err.Error(), placeholderStem)

	dup := "apiVersion: v1\nkind: A\n${K}: 1\n${K}: 2\n"
	_, err = Read(strings.NewReader(dup), "dup.yaml", WithVariables())
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), `mapping key "${K}" is repeated`, "one reference has one placeholder")
}

// TestPlaceholderPrefixIsUnique: a text that holds the placeholder stem gets a longer prefix, so that its own text
// is never taken for a placeholder.
func TestPlaceholderPrefixIsUnique(t *testing.T) {
	in := "apiVersion: v1\nkind: A\nx: capkitvarx0z\nz: capkitvarxx1z ${A}\n"
	out, p := substituteVariables([]byte(in))
	require.NotNil(t, p)
	assert.Equal(t, "capkitvarxxx", p.prefix)
	assert.Equal(t, in, p.restore(string(out)))
	f, err := Read(strings.NewReader(in), "t.yaml", WithVariables())
	require.NoError(t, err)
	assert.Equal(t, "capkitvarx0z", f.Documents[0].Object.Object["x"])
	assert.Equal(t, "capkitvarxx1z ${A}", f.Documents[0].Object.Object["z"])
}

// TestReadWithDefaultKind: documents without kind or apiVersion get the defaults, as Kubernetes' decoder gives a
// typed object's; the ones set are kept.
func TestReadWithDefaultKind(t *testing.T) {
	tests := []struct {
		in, apiVersion, kind string
	}{
		{"releaseSeries: []\n", "clusterctl.cluster.x-k8s.io/v1alpha3", "Metadata"},
		{"apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nreleaseSeries: []\n", "clusterctl.cluster.x-k8s.io/v1alpha3", "Metadata"},
		{"kind: Metadata\nreleaseSeries: []\n", "clusterctl.cluster.x-k8s.io/v1alpha3", "Metadata"},
		{"apiVersion: v1\nkind: ConfigMap\n", "v1", "ConfigMap"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, err := Read(strings.NewReader(tt.in), "metadata.yaml", WithDefaultKind("clusterctl.cluster.x-k8s.io/v1alpha3", "Metadata"))
			require.NoError(t, err)
			require.Len(t, f.Documents, 1)
			assert.Equal(t, tt.apiVersion, f.Documents[0].Object.GetAPIVersion())
			assert.Equal(t, tt.kind, f.Documents[0].Object.GetKind())
		})
	}
	_, err := Read(strings.NewReader("releaseSeries: []\n"), "metadata.yaml")
	require.ErrorIs(t, err, ErrMalformed, "without the option a document needs both")
}

// FuzzSubstituteVariables: on any text, substitution keeps every line, never makes a placeholder that the original
// text holds, and putting the references back gives the original text.
func FuzzSubstituteVariables(f *testing.F) {
	for _, s := range []string{"a: ${A}", "a: [${A:=${B}}]\n${C}: $$D", "${ A }${#B}${C/x/y}", "${A:=x\n}", "capkitvarx ${A}", "${A:=" + strings.Repeat("${B:=", 40)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		out, p := substituteVariables(data)
		if p == nil {
			return
		}
		if bytes.Count(out, []byte("\n")) != bytes.Count(data, []byte("\n")) {
			t.Fatalf("lines changed: %q -> %q", data, out)
		}
		if bytes.Contains(data, []byte(p.prefix)) {
			t.Fatalf("prefix %q occurs in the text", p.prefix)
		}
		if got := p.restore(string(out)); got != string(data) {
			t.Fatalf("restore(%q) = %q, want %q", out, got, data)
		}
		for i, ref := range p.refs {
			if token := p.token(i, len(ref)); len(token) < len(ref) {
				t.Fatalf("placeholder %q shorter than %q", token, ref)
			}
		}
	})
}
