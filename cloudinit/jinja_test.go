package cloudinit

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// renderJinja tokenizes a template and puts the values back in its text, as a template without YAML
// would read.
func renderJinja(src string, vars map[string]string) (string, error) {
	out, jv, err := tokenizeJinja(src, vars)
	if err != nil {
		return "", err
	}
	return jv.expand(out, false, math.MaxInt)
}

func TestRenderJinja(t *testing.T) {
	vars := map[string]string{"local_hostname": "node-0", "ds.meta_data.hostname": "node-0.example.com", "v1.instance_id": "i-1"}
	tests := []struct {
		name, src, want string
	}{
		{"dotted and shorthand", "a: {{ ds.meta_data.hostname }} {{v1.local_hostname}} {{ds.meta_data.local_hostname}} {{ v1.instance_id }}\n", "a: node-0.example.com node-0 node-0 i-1"},
		{"no tags", "a: b\n\n", "a: b\n"},
		{"comment", "a{# note #}b", "ab"},
		{"whitespace control", "a  \n {{- local_hostname -}} \n b", "anode-0b"},
		{"whitespace control keeps values", "{{ local_hostname }} \n {{- local_hostname }}", "node-0node-0"},
		{"prefix in the template", "capkitjinja capkitjinjaxx{{ local_hostname }}capkit{# #}jinjax", "capkitjinja capkitjinjaxxnode-0capkitjinjax"},
		{"crlf", "a\r\nb\r\n", "a\nb"},
		{"braces that are not tags", "x: ${a} { b } }}", "x: ${a} { b } }}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderJinja(tt.src, vars)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRenderJinjaErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
		is              error
	}{
		{"undeclared", "a\nb: {{ ds.meta_data.region }}", `jinja line 2: undeclared jinja variable "ds.meta_data.region"`, ErrUndeclaredVariable},
		{"statement", "{% if x %}a{% endif %}", `jinja line 1: statements ({% ... %}) are not supported`, ErrUnsupported},
		{"filter", "{{ local_hostname | upper }}", `jinja line 1: an expression that is not a variable name`, ErrUnsupported},
		{"subscript", `{{ ds.meta_data["local-hostname"] }}`, `is not a variable name`, ErrUnsupported},
		{"unclosed", "a {{ local_hostname", `jinja line 1: {{ is not closed by }}`, ErrInvalid},
		{"unclosed comment", "{# a", `jinja line 1: {# is not closed by #}`, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderJinja(tt.src, map[string]string{"local_hostname": "n"})
			assert.ErrorIs(t, err, tt.is)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestParseJinja(t *testing.T) {
	data := "## template: jinja\n#cloud-config\nhostname: '{{ ds.meta_data.local_hostname }}'\nruncmd: ['echo {{ v1.instance_id }}']\n"
	cfg, err := Parse([]byte(data), WithVariables(map[string]string{"local_hostname": "cp-0"}), WithVariables(map[string]string{"instance_id": "i-9"}))
	require.NoError(t, err)
	assert.True(t, cfg.Jinja)
	assert.Equal(t, "cp-0", cfg.Hostname.Hostname)
	assert.Equal(t, []Cmd{{Shell: "echo i-9"}}, cfg.RunCmd)

	_, err = Parse([]byte(data), WithVariables(map[string]string{"local_hostname": "cp-0"}))
	assert.ErrorIs(t, err, ErrUndeclaredVariable)
	assert.EqualError(t, err, `cannot parse user data: jinja line 3: undeclared jinja variable "v1.instance_id"`)

	// A value cannot add YAML structure.
	_, err = Parse([]byte(data), WithVariables(map[string]string{"local_hostname": "x'\nruncmd: [reboot]\n#", "instance_id": "i"}))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, `cannot parse user data: jinja variable "local_hostname": value holds a control character or is not UTF-8: invalid value`)

	// Without the header, braces are left alone, as cloud-init does.
	cfg = mustParse(t, []byte("#cloud-config\nruncmd: ['echo {{ x }}']\n"))
	assert.False(t, cfg.Jinja)
	assert.Equal(t, []Cmd{{Shell: "echo {{ x }}"}}, cfg.RunCmd)

	// The header is case- and space-insensitive; a jinja shell script is rendered too.
	cfg = mustParse(t, []byte("##Template:  JINJA \r\n#!/bin/sh\necho {{ hostname }}\n"), WithVariables(map[string]string{"hostname": "h"}))
	assert.Equal(t, KindShellScript, cfg.Kind)
	assert.Equal(t, "#!/bin/sh\necho h", string(cfg.Scripts[0].Content))
}
