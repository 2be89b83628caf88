package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeUserData(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "user-data.yaml")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestRunRender(t *testing.T) {
	jinja := writeUserData(t, "## template: jinja\n#cloud-config\nhostname: '{{ ds.meta_data.local_hostname }}'\nruncmd: [kubeadm init]\n")
	unsupported := writeUserData(t, "#cloud-config\npackages: [nginx]\nruncmd: [kubeadm init]\n")
	bad := writeUserData(t, "#cloud-config\nwrite_files:\n- {path: /a, permissions: '0x644'}\n")
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     []string // substrings of standard output
		stderr     string   // substring of standard error ("" means empty)
		noInStdout string
	}{
		{"jinja variables", []string{"--var", "local_hostname=cp-0", jinja}, 0, []string{"#!/bin/bash\n", "capkit_run capkit_hostname 'cp-0'\n", "capkit_run 'sh' '-c' 'kubeadm init'\n", "'/run/cluster-api/bootstrap-success.complete'"}, "", ""},
		{"flags after the path", []string{jinja, "--var=local_hostname=cp-1", "--root", "/mnt/image", "--sentinel", ""}, 0, []string{"capkit_write '/etc/hostname' '0644' 'root:root' 'replace' '/mnt/image'", "capkit_chown() { :; }"}, "", "bootstrap-success"},
		{"dry run", []string{"--dry-run", "--var", "local_hostname=x", jinja}, 0, []string{"printf -v capkit_line '%q ' \"$@\""}, "", ""},
		{"undeclared variable", []string{jinja}, 2, nil, `undeclared jinja variable "ds.meta_data.local_hostname"`, ""},
		{"strict rejects a module", []string{unsupported}, 2, nil, "capkit render: " + unsupported + ": cannot parse user data: packages: module not supported\n", ""},
		{"lenient lists skipped modules", []string{"--lenient", unsupported}, 0, []string{"# skipped: packages (module not supported)\n"}, "capkit render: skipped packages (module not supported)\n", ""},
		{"invalid value", []string{bad}, 2, nil, `write_files[0].permissions: "0x644" is not octal`, ""},
		{"missing file", []string{"/nonexistent/user-data"}, 2, nil, `capkit render: cannot read "/nonexistent/user-data": no such file or directory`, ""},
		{"no path", nil, 2, nil, "capkit render: want one PATH, got 0", ""},
		{"two paths", []string{jinja, jinja}, 2, nil, "want one PATH, got 2", ""},
		{"bad var", []string{"--var", "novalue", jinja}, 2, nil, `invalid value "novalue" for flag -var: "novalue" is not key=value`, ""},
		{"unknown flag", []string{"--bogus", jinja}, 2, nil, "flag provided but not defined: -bogus", ""},
		{"bad root", []string{"--root", "relative", "--var", "local_hostname=x", jinja}, 2, nil, `root prefix "relative" is not an absolute path`, ""},
		{"help", []string{"-h"}, 0, nil, "usage: capkit render [flags] PATH", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runRender(tt.args, &stdout, &stderr)
			assert.Equal(t, tt.code, code, "stderr: %s", stderr.String())
			for _, s := range tt.stdout {
				assert.Contains(t, stdout.String(), s)
			}
			if tt.code != 0 {
				assert.Empty(t, stdout.String(), "nothing on standard output on failure")
			}
			if tt.stderr == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.Contains(t, stderr.String(), tt.stderr)
			}
			if tt.noInStdout != "" {
				assert.NotContains(t, stdout.String(), tt.noInStdout)
			}
		})
	}
}

func TestRunDispatchesRender(t *testing.T) {
	p := writeUserData(t, "#!/bin/sh\necho hi\n")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"render", p}, &stdout, &stderr), stderr.String())
	assert.True(t, strings.HasPrefix(stdout.String(), "#!/bin/bash\n"))
	assert.Contains(t, stdout.String(), "capkit_run '/var/lib/capkit/scripts/part-001'\n")
}
