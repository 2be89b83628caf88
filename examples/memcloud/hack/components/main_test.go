package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
	"github.com/capkit/capkit/release/components"
)

// configDir is memcloud's config folder, relative to this package, and oldReleaseDir the folder of release
// v0.1.0 (contract v1beta1), which has no admission webhooks.
const (
	configDir     = "../../config"
	oldReleaseDir = configDir + "/releases/v0.1.0"
)

// committed returns the committed infrastructure-components.yaml of the config folder dir.
func committed(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "infrastructure-components.yaml"))
	require.NoError(t, err)
	return string(data)
}

// copyGenerated copies the files controller-gen generates in memcloud's config folder to a temporary folder.
func copyGenerated(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, pattern := range []string{"crd/bases/*.yaml", "rbac/role.yaml", "webhook/manifests.yaml"} {
		names, err := filepath.Glob(filepath.Join(configDir, pattern))
		require.NoError(t, err)
		require.NotEmpty(t, names, pattern)
		for _, n := range names {
			rel, err := filepath.Rel(configDir, n)
			require.NoError(t, err)
			data, err := os.ReadFile(n)
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, rel), data, 0o644))
		}
	}
	return dir
}

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name string
		// args returns the command line and the file it should write ("" for none).
		args func(t *testing.T) ([]string, string)
		// dir is the config folder whose committed file the written one must equal (configDir when empty).
		dir     string
		wantErr error
		// wantMsg is part of the error when wantErr is nil but an error is expected.
		wantMsg string
	}{
		{name: "committed file is fresh", args: func(t *testing.T) ([]string, string) {
			out := filepath.Join(t.TempDir(), "components.yaml")
			return []string{"-config", configDir, "-o", out}, out
		}},
		{name: "committed v0.1.0 file is fresh", args: func(t *testing.T) ([]string, string) {
			out := filepath.Join(t.TempDir(), "components.yaml")
			return []string{"-config", oldReleaseDir, "-o", out}, out
		}, dir: oldReleaseDir},
		{name: "output defaults to the config folder", args: func(t *testing.T) ([]string, string) {
			dir := copyGenerated(t)
			return []string{"-config", dir}, filepath.Join(dir, "infrastructure-components.yaml")
		}},
		{name: "help", args: func(*testing.T) ([]string, string) { return []string{"-h"}, "" }, wantErr: flag.ErrHelp},
		{name: "unknown flag", args: func(*testing.T) ([]string, string) { return []string{"-x"}, "" }, wantErr: components.ErrUsage},
		{name: "extra argument", args: func(*testing.T) ([]string, string) { return []string{"extra"}, "" }, wantErr: components.ErrUsage},
		{name: "config folder without generated files", args: func(t *testing.T) ([]string, string) {
			return []string{"-config", t.TempDir()}, ""
		}, wantMsg: "run controller-gen first"},
		{name: "unwritable output", args: func(t *testing.T) ([]string, string) {
			return []string{"-config", configDir, "-o", filepath.Join(t.TempDir(), "missing", "out.yaml")}, ""
		}, wantMsg: "cannot write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, out := tt.args(t)
			var stderr bytes.Buffer
			err := components.Run(config, args, &stderr)
			switch {
			case tt.wantErr != nil:
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, stderr.String(), "Usage of components")
			case tt.wantMsg != "":
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantMsg)
				assert.False(t, errors.Is(err, components.ErrUsage))
			default:
				require.NoError(t, err)
				got, err := os.ReadFile(out)
				require.NoError(t, err)
				dir := tt.dir
				if dir == "" {
					dir = configDir
				}
				assert.Equal(t, committed(t, dir), string(got), "infrastructure-components.yaml is stale: run make generate")
			}
		})
	}
}

func TestReleaseFilesFollowContract(t *testing.T) {
	tests := []struct {
		dir      string
		patterns []string
	}{
		{dir: configDir, patterns: []string{"metadata.yaml", "infrastructure-components.yaml", "templates/*.yaml"}},
		{dir: oldReleaseDir, patterns: []string{"metadata.yaml", "infrastructure-components.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			var files []*clusterctl.YAMLFile
			for _, pattern := range tt.patterns {
				names, err := filepath.Glob(filepath.Join(tt.dir, pattern))
				require.NoError(t, err)
				require.NotEmpty(t, names, pattern)
				for _, n := range names {
					f, err := clusterctl.ReadYAMLFile(n)
					require.NoError(t, err)
					files = append(files, f)
				}
			}
			findings, err := clusterctl.CheckFiles(files...)
			require.NoError(t, err)
			var lines []string
			for _, f := range findings {
				lines = append(lines, f.String())
			}
			assert.Empty(t, lines)
		})
	}
}
