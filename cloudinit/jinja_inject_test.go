package cloudinit

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scalarsTemplate puts jinja variables in YAML scalars of every style (plain, single- and
// double-quoted, literal and folded blocks, flow and block lists, a file content), none of which is
// a shell command line: a value there is data.
const scalarsTemplate = `## template: jinja
#cloud-config
runcmd: [ [echo, "hello {{ v1.local_hostname }}"], [touch, '/tmp/{{ v1.local_hostname }}.ok'] ]
bootcmd:
- - hostnamectl
  - set-hostname
  - {{ ds.meta_data.local_hostname }}
- [kubeadm, join, --node-name, '{{ ds.meta_data.local_hostname }}', --v=5]
write_files:
- path: /run/kubeadm/kubeadm-join-config.yaml
  content: |
    nodeRegistration:
      name: '{{ ds.meta_data.local_hostname }}'
      kubeletExtraArgs: {provider-id: "capkit://{{ v1.local_hostname }}"}
- path: /etc/motd
  content: >
    welcome to
    {{ v1.local_hostname }}
users:
- name: capi
  ssh_authorized_keys:
  - ssh-ed25519 AAAA {{ v1.local_hostname }} admin
final_message: "{{ v1.local_hostname }} is up"
`

// shellTemplate puts a jinja variable in a shell command line, as CAPI templates do for the host name.
const shellTemplate = `## template: jinja
#cloud-config
runcmd:
- kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml --node-name {{ ds.meta_data.local_hostname }}
`

// shellArgvTemplate puts a jinja variable in the command line of a shell's -c option.
const shellArgvTemplate = `## template: jinja
#cloud-config
bootcmd:
- [cloud-init-per, once, hostname, /bin/bash, -ec, 'hostnamectl set-hostname {{ v1.local_hostname }}']
`

// textSubstitution renders a jinja template the way the package did before values were put into
// parsed scalars: each {{ name }} replaced by its value in the text, which is then parsed as plain
// user data. For values that are valid where they land, it must give the same Config.
func textSubstitution(t *testing.T, template string, vars map[string]string) *Config {
	t.Helper()
	body := strings.TrimPrefix(template, "## template: jinja\n")
	body = regexp.MustCompile(`\{\{-?\s*([A-Za-z0-9_.]+)\s*-?\}\}`).ReplaceAllStringFunc(body, func(m string) string {
		name := regexp.MustCompile(`[A-Za-z0-9_.]+`).FindString(m)
		v, ok := lookupVar(vars, name)
		require.True(t, ok, "%s is declared", name)
		return v
	})
	return mustParse(t, []byte(strings.TrimSuffix(body, "\n")))
}

// TestJinjaBenignValuesRenderAsBefore checks that for values that are valid where they land the
// rendered script is byte for byte the one that text substitution gives, on the kubeadm samples and
// on templates with variables in every kind of scalar.
func TestJinjaBenignValuesRenderAsBefore(t *testing.T) {
	type sample struct{ name, template string }
	samplesToo := []sample{{"scalars", scalarsTemplate}, {"shell", shellTemplate}, {"shell argv", shellArgvTemplate}}
	for _, name := range samples {
		samplesToo = append(samplesToo, sample{name, string(readTestdata(t, name+".yaml"))})
	}
	values := []string{"node-0", "ip-10-0-0-1.ec2.internal", "cp-0", "a", "10.0.0.1", "node_0.1/2@x+y,z=%"}
	for _, s := range samplesToo {
		for _, v := range values {
			if s.name == "controlplane-init" && strings.ContainsAny(v, "_/@+,=%") {
				continue // the sample's hostname module takes a host name only
			}
			t.Run(s.name+"/"+v, func(t *testing.T) {
				vars := map[string]string{"local_hostname": v, "instance_id": "i-0123456789"}
				want, err := Render(textSubstitution(t, s.template, vars))
				require.NoError(t, err)
				got, err := Render(mustParse(t, []byte(s.template), WithVariables(vars)))
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got))
			})
		}
	}
	// A value with spaces where a scalar allows them.
	vars := map[string]string{"local_hostname": "Cluster API node 7"}
	want := textSubstitution(t, scalarsTemplate, vars)
	got := mustParse(t, []byte(scalarsTemplate), WithVariables(vars))
	got.Jinja = false
	assert.Equal(t, want, got)
}

// replaceStrings returns a copy of cfg with every occurrence of old replaced by new in every string
// and byte slice. With old the value of a variable that the template does not hold otherwise, it
// gives the Config of the template with new as the value.
func replaceStrings(cfg *Config, old, new string) *Config {
	out := reflect.New(reflect.TypeOf(*cfg))
	out.Elem().Set(reflect.ValueOf(*cfg))
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(strings.ReplaceAll(v.String(), old, new))
		case reflect.Slice:
			if v.IsNil() {
				return
			}
			if v.Type().Elem().Kind() == reflect.Uint8 {
				v.SetBytes([]byte(strings.ReplaceAll(string(v.Bytes()), old, new)))
				return
			}
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			v.Set(c)
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Pointer:
			if !v.IsNil() {
				c := reflect.New(v.Type().Elem())
				c.Elem().Set(v.Elem())
				v.Set(c)
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		}
	}
	walk(out.Elem())
	return out.Interface().(*Config)
}

// TestJinjaValueCannotChangeStructure substitutes hostile values into YAML scalars of every style: each
// ends up as literal data where the variable was (the Config is the one of a benign value with the
// value in its place), never as new YAML structure (another command, argument, file or key).
func TestJinjaValueCannotChangeStructure(t *testing.T) {
	const benign = "node-0"
	base := mustParse(t, []byte(scalarsTemplate), WithVariables(map[string]string{"local_hostname": benign}))
	hostile := []string{
		`n1"], ["touch", "/tmp/x`, // flow style: a double quote ends the scalar and adds a command
		`n1'], ['touch', '/tmp/x`,
		`n1, touch`,
		`n1], [touch, /tmp/x`,
		`a: b`, // block style: a mapping value, a list item, a comment
		`- touch /tmp/x`,
		`n1 # comment`,
		`n1 --ignore-preflight-errors=all`,
		`&anchor n1`, // anchors, aliases and tags
		`*anchor`,
		`!!binary AAAA`,
		`!tag n1`,
		`{{ v1.instance_id }}`, // not substituted again
		`{a: b}`,
		`|`,
		`>-`,
		`n1'`,
		`n1"`,
		`\"`,
		`\n\x41`,
		`---`,
		`%YAML 1.1`,
		`$(touch /tmp/x)`,
		"`touch /tmp/x`",
		strings.Repeat("long ", maxVarSize/5),
	}
	for _, v := range hostile {
		t.Run(v[:min(len(v), 32)], func(t *testing.T) {
			vars := map[string]string{"local_hostname": v, "instance_id": "i-0"}
			cfg, err := Parse([]byte(scalarsTemplate), WithVariables(vars))
			require.NoError(t, err)
			assert.Equal(t, replaceStrings(base, benign, v), cfg, "the value is data where the variable was")
			assert.Equal(t, []string{"echo", "hello " + v}, cfg.RunCmd[0].Argv)
			assert.Equal(t, []string{"kubeadm", "join", "--node-name", v, "--v=5"}, cfg.BootCmd[1].Argv)
			_, err = Render(cfg)
			require.NoError(t, err)
		})
	}
}

// TestJinjaRefusesValuesSignificantWhereTheyLand checks the values that would be significant where
// they land: in a shell command line (a runcmd or bootcmd string, a shell script) a value must be one
// word of letters, digits and ._:@%+,=/-, and no value may hold a control character or be longer than
// maxVarSize bytes. The error names the variable, never the value.
func TestJinjaRefusesValuesSignificantWhereTheyLand(t *testing.T) {
	script := "## template: jinja\n#!/bin/sh\nhostnamectl set-hostname {{ v1.local_hostname }}\n"
	mime := "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/x-shellscript\n\n" + script + "--B--\n"
	tests := []struct {
		name, template, value, want string
		is                          error
	}{
		{"extra argument", shellTemplate, "n1 --ignore-preflight-errors=all", `runcmd[0]: jinja variable "ds.meta_data.local_hostname" is not one word of letters, digits and ._:@%+,=/- as a shell command line needs`, ErrInvalid},
		{"command separator", shellTemplate, "n1;touch /tmp/x", `runcmd[0]: jinja variable "ds.meta_data.local_hostname" is not one word`, ErrInvalid},
		{"substitution", shellTemplate, "$(touch /tmp/x)", `jinja variable "ds.meta_data.local_hostname" is not one word`, ErrInvalid},
		{"backticks", shellTemplate, "`touch /tmp/x`", `jinja variable "ds.meta_data.local_hostname" is not one word`, ErrInvalid},
		{"quote", shellTemplate, "n1'touch", `jinja variable "ds.meta_data.local_hostname" is not one word`, ErrInvalid},
		{"glob", shellTemplate, "touch*", `jinja variable "ds.meta_data.local_hostname" is not one word`, ErrInvalid},
		{"tilde", shellTemplate, "~touch", `jinja variable "ds.meta_data.local_hostname" is not one word`, ErrInvalid},
		{"empty", shellTemplate, "", `jinja variable "ds.meta_data.local_hostname" is not one word`, ErrInvalid},
		{"shell -c argument", shellArgvTemplate, "n1;touch /tmp/x", `bootcmd[0][5]: jinja variable "v1.local_hostname" is not one word`, ErrInvalid},
		{"shell script", script, "n1;touch /tmp/x", `shell script: jinja variable "v1.local_hostname" is not one word`, ErrInvalid},
		{"MIME shell script", mime, "n1 touch", `part[0]: shell script: jinja variable "v1.local_hostname" is not one word`, ErrInvalid},
		{"line break", scalarsTemplate, "n1\n- touch /tmp/x", `jinja variable "local_hostname": value holds a control character or is not UTF-8`, ErrInvalid},
		{"tab", scalarsTemplate, "n1\ttouch", `jinja variable "local_hostname": value holds a control character`, ErrInvalid},
		{"not UTF-8", scalarsTemplate, "n1\xfftouch", `jinja variable "local_hostname": value holds a control character or is not UTF-8`, ErrInvalid},
		{"too long", scalarsTemplate, strings.Repeat("touch", maxVarSize/5+1), `jinja variable "local_hostname": value is 4100 bytes, more than 4096`, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.template), WithVariables(map[string]string{"local_hostname": tt.value}))
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "touch", "the error does not show the value")
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestJinjaVariablesOnlyInValues checks that a variable in a mapping key, where a value would choose
// a module or a field, is refused whatever its value, and that a template may not render to a MIME
// archive (cloud-init renders templates in parts, not around them).
func TestJinjaVariablesOnlyInValues(t *testing.T) {
	vars := WithVariables(map[string]string{"local_hostname": "runcmd", "b": "B"})
	_, err := Parse([]byte("## template: jinja\n#cloud-config\n{{ v1.local_hostname }}: [reboot]\n"), vars)
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.ErrorContains(t, err, `jinja variable "v1.local_hostname" is in a mapping key: variables are substituted into values only`)

	_, err = Parse([]byte("## template: jinja\nContent-Type: multipart/mixed; boundary={{ b }}\n\n--B\n\n#!/bin/sh\n--B--\n"), vars)
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.ErrorContains(t, err, "a jinja template renders to a #cloud-config or a #! script, not a MIME archive")
}

// TestJinjaErrorsShowNoTemplateText checks that jinja errors name the line and, for a variable, its
// name (a bounded identifier), never text from inside {{ }}, which can be bootstrap data.
func TestJinjaErrorsShowNoTemplateText(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"expression", "#cloud-config\na: b\nc: {{ SECRET-token | b64decode }}\n", "jinja line 3: an expression that is not a variable name (filters and expressions are not supported)"},
		{"subscript", "a {{ ds['SECRET'] }}", "jinja line 1: an expression that is not a variable name"},
		{"long name", "{{ " + strings.Repeat("n", 100) + "SECRET }}", `jinja line 1: undeclared jinja variable "` + strings.Repeat("n", 64) + `"...`},
		{"template type", "## template: SECRET{{ x }}\n#cloud-config\n", "template type is not jinja"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if !strings.HasPrefix(src, "## template:") {
				src = "## template: jinja\n" + src
			}
			_, err := Parse([]byte(src))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "SECRET")
		})
	}
}
