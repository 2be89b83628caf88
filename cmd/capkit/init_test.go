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

func TestInitRefusesSymlinkOutside(t *testing.T) {
	args := []string{"--module", "example.com/acme", "--provider", "acme", "--capkit-version", "v0.1.0", "--force"}
	tests := []struct {
		name      string
		links     map[string]string // link in DIR -> target ("OUT" is the folder outside DIR)
		wantInErr string            // empty: written inside DIR
	}{
		{name: ".ci and api linked outside", links: map[string]string{".ci": "OUT", "api": "OUT"}, wantInErr: `folder ".ci" is a symbolic link`},
		{name: "api linked outside", links: map[string]string{"api": "OUT"}, wantInErr: `folder "api" is a symbolic link`},
		{name: "file linked outside", links: map[string]string{"Makefile": "OUT/Makefile"}, wantInErr: `"Makefile": it is a symbolic link`},
		{name: "api linked inside", links: map[string]string{"api": "real"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir, out := filepath.Join(base, "dir"), filepath.Join(base, "out")
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "real"), 0o755))
			require.NoError(t, os.Mkdir(out, 0o755))
			for link, target := range tt.links {
				if rest, ok := strings.CutPrefix(target, "OUT"); ok {
					target = out + rest
				}
				require.NoError(t, os.Symlink(target, filepath.Join(dir, link)))
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"init", dir}, args...), &stdout, &stderr)
			entries, err := os.ReadDir(out)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing written outside DIR")
			if tt.wantInErr == "" {
				require.Equal(t, 0, code, stderr.String())
				_, err := os.Stat(filepath.Join(dir, "real", "v1beta2", "acmecluster_types.go"))
				require.NoError(t, err)
				return
			}
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr.String(), tt.wantInErr)
		})
	}
}
