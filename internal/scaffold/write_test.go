package scaffold_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
)

// listTree returns the files and folders under dir, by slash-separated path.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if rel != "." {
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	}))
	return names
}

func TestWriteRefusesSymlinkOutside(t *testing.T) {
	tests := []struct {
		name string
		// setup makes links in dir, which may lead to outside (an empty folder) or to outside/victim.
		setup   func(t *testing.T, dir, outside string)
		files   scaffold.Files
		wantErr string // empty: the write succeeds and stays inside dir
	}{
		{
			name: "folder linked outside",
			setup: func(t *testing.T, dir, outside string) {
				require.NoError(t, os.Symlink(outside, filepath.Join(dir, ".ci")))
			},
			files:   scaffold.Files{".ci/run": []byte("#!/bin/sh\nrm -rf ~\n")},
			wantErr: `".ci"`,
		},
		{
			name: "nested folder linked outside",
			setup: func(t *testing.T, dir, outside string) {
				require.NoError(t, os.Mkdir(filepath.Join(dir, "api"), 0o755))
				require.NoError(t, os.Symlink(outside, filepath.Join(dir, "api", "v1beta2")))
			},
			files:   scaffold.Files{"api/v1beta2/types.go": []byte("package v1beta2\n"), "README.md": []byte("x")},
			wantErr: `"api/v1beta2"`,
		},
		{
			name: "folder linked outside by a relative link",
			setup: func(t *testing.T, dir, outside string) {
				require.NoError(t, os.Symlink("../outside", filepath.Join(dir, "api")))
			},
			files:   scaffold.Files{"api/v1beta2/types.go": []byte("package v1beta2\n")},
			wantErr: `"api"`,
		},
		{
			name: "file linked outside",
			setup: func(t *testing.T, dir, outside string) {
				require.NoError(t, os.Symlink(filepath.Join(outside, "victim"), filepath.Join(dir, "Makefile")))
			},
			files:   scaffold.Files{"Makefile": []byte("all:\n")},
			wantErr: `"Makefile"`,
		},
		{
			name: "folder linked to a link that leads outside",
			setup: func(t *testing.T, dir, outside string) {
				require.NoError(t, os.Symlink(outside, filepath.Join(dir, "hop")))
				require.NoError(t, os.Symlink("hop", filepath.Join(dir, "api")))
			},
			files:   scaffold.Files{"api/types.go": []byte("package api\n")},
			wantErr: `"api"`,
		},
		{
			name: "folder linked inside by an absolute link",
			setup: func(t *testing.T, dir, outside string) {
				require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
				require.NoError(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "api")))
			},
			files: scaffold.Files{"api/v1beta2/types.go": []byte("package v1beta2\n")},
		},
		{
			name: "folder linked inside",
			setup: func(t *testing.T, dir, outside string) {
				require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
				require.NoError(t, os.Symlink("real", filepath.Join(dir, "api")))
			},
			files: scaffold.Files{"api/v1beta2/types.go": []byte("package v1beta2\n")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir, outside := filepath.Join(base, "dir"), filepath.Join(base, "outside")
			require.NoError(t, os.Mkdir(dir, 0o755))
			require.NoError(t, os.Mkdir(outside, 0o755))
			tt.setup(t, dir, outside)
			err := scaffold.Write(dir, tt.files, true)
			assert.Empty(t, listTree(t, outside), "nothing written outside dir")
			if tt.wantErr == "" {
				require.NoError(t, err)
				got, err := os.ReadFile(filepath.Join(dir, "real", "v1beta2", "types.go"))
				require.NoError(t, err)
				assert.Equal(t, "package v1beta2\n", string(got))
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "symbolic link")
		})
	}
}

// goModEdit parses the go.mod data with "go mod edit -json", as the go command reads it.
func goModEdit(t *testing.T, data []byte) (mod struct {
	Replace []struct {
		Old, New struct{ Path, Version string }
	}
}, err error,
) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "go.mod")
	require.NoError(t, os.WriteFile(name, data, 0o644))
	out, err := exec.Command("go", "mod", "edit", "-json", name).CombinedOutput()
	if err != nil {
		return mod, &exec.Error{Name: string(out), Err: err}
	}
	require.NoError(t, json.Unmarshal(out, &mod))
	return mod, nil
}

func TestInitQuotesCapkitReplace(t *testing.T) {
	for _, replace := range []string{"../capkit", "/home/a b/capkit", "/src//capkit", "./x/*y", "/a'b/c(1)"} {
		t.Run(replace, func(t *testing.T) {
			o := valid()
			o.CapkitReplace = replace
			files, err := scaffold.Init(o)
			require.NoError(t, err)
			mod, err := goModEdit(t, files["go.mod"])
			require.NoError(t, err, "go.mod:\n%s", files["go.mod"])
			require.Len(t, mod.Replace, 1)
			assert.Equal(t, scaffold.CapkitModule, mod.Replace[0].Old.Path)
			assert.Equal(t, replace, mod.Replace[0].New.Path)
		})
	}
}
