package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunInit(t *testing.T) {
	nonEmpty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(nonEmpty, "x"), nil, 0o644))
	tests := []struct {
		name      string
		args      []string
		wantCode  int
		wantInErr string
	}{
		{name: "writes", args: []string{"NEW", "--module", "example.com/acme", "--provider", "acme", "--capkit-version", "v0.1.0"}},
		{name: "no DIR", args: []string{"--module", "example.com/acme", "--provider", "acme"}, wantCode: 2, wantInErr: "want DIR"},
		{name: "bad provider names the flag", args: []string{"NEW", "--module", "example.com/acme", "--provider", "Acme"}, wantCode: 2, wantInErr: `--provider "Acme"`},
		{name: "bad module names the flag", args: []string{"NEW", "--module", "acme", "--provider", "acme"}, wantCode: 2, wantInErr: `--module "acme"`},
		{name: "non-empty DIR", args: []string{nonEmpty, "--module", "example.com/acme", "--provider", "acme", "--capkit-version", "v0.1.0"}, wantCode: 1, wantInErr: "not empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.args[0] == "NEW" {
				tt.args[0] = filepath.Join(t.TempDir(), "new")
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"init"}, tt.args...), &stdout, &stderr)
			assert.Equal(t, tt.wantCode, code, stderr.String())
			assert.Contains(t, stderr.String(), tt.wantInErr)
			if tt.wantCode == 0 {
				_, err := os.Stat(filepath.Join(tt.args[0], "api", "v1beta2", "acmecluster_types.go"))
				require.NoError(t, err)
				info, err := os.Stat(filepath.Join(tt.args[0], ".ci", "run"))
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())
			}
		})
	}
}
