//go:build unix

package accessorgen

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// returnsInTime runs f and fails the test when f has not returned within a few seconds: opening a named pipe
// waits for a writer. It then opens the pipes for writing, until f returns, so that no goroutine is left blocked.
func returnsInTime(t *testing.T, pipes []string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Errorf("still running after 5 s: it opened a named pipe and waits for a writer")
	}
	for {
		for _, p := range pipes {
			if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				_ = w.Close()
			}
		}
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestWriteRefusesNonRegularFiles: a named pipe, as a Go file of the package (or the target of a link named
// *.go), as the folder or as the output, is refused with an error naming it, and never opened; an output that
// is a symbolic link is refused and left as it is.
func TestWriteRefusesNonRegularFiles(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "example", "types.go"))
	require.NoError(t, err)
	generated, err := os.ReadFile(filepath.Join("testdata", "example", DefaultOutput))
	require.NoError(t, err)
	pkg := func(t *testing.T) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "types.go"), src, 0o600))
		return dir
	}
	fifo := func(t *testing.T, path string) string {
		require.NoError(t, syscall.Mkfifo(path, 0o600))
		return path
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T) (dir string, pipes []string)
		wantErr func(dir string) string
		output  bool // the output is at fault, not the package
	}{
		{
			name: "a named pipe called *.go",
			setup: func(t *testing.T) (string, []string) {
				dir := pkg(t)
				return dir, []string{fifo(t, filepath.Join(dir, "pipe.go"))}
			},
			wantErr: func(dir string) string {
				return `cannot read "` + filepath.Join(dir, "pipe.go") + `": not a regular file (named pipe)`
			},
		},
		{
			name: "a link called *.go to a named pipe",
			setup: func(t *testing.T) (string, []string) {
				dir := pkg(t)
				pipe := fifo(t, filepath.Join(t.TempDir(), "pipe"))
				require.NoError(t, os.Symlink(pipe, filepath.Join(dir, "link.go")))
				return dir, []string{pipe}
			},
			wantErr: func(dir string) string {
				return `cannot read "` + filepath.Join(dir, "link.go") + `": not a regular file (named pipe)`
			},
		},
		{
			name: "a named pipe as the output", output: true,
			setup: func(t *testing.T) (string, []string) {
				dir := pkg(t)
				return dir, []string{fifo(t, filepath.Join(dir, DefaultOutput))}
			},
			wantErr: func(dir string) string {
				return `cannot write accessors: "` + filepath.Join(dir, DefaultOutput) + `" is not a regular file (named pipe)`
			},
		},
		{
			name: "a named pipe as the folder",
			setup: func(t *testing.T) (string, []string) {
				pipe := fifo(t, filepath.Join(t.TempDir(), "api"))
				return pipe, []string{pipe}
			},
			wantErr: func(dir string) string { return `cannot read package "` + dir + `": not a folder (named pipe)` },
		},
		{
			name: "a link as the output", output: true,
			setup: func(t *testing.T) (string, []string) {
				dir := pkg(t)
				elsewhere := filepath.Join(t.TempDir(), "accessors.go")
				require.NoError(t, os.WriteFile(elsewhere, generated, 0o600))
				require.NoError(t, os.Symlink(elsewhere, filepath.Join(dir, DefaultOutput)))
				return dir, nil
			},
			wantErr: func(dir string) string {
				return `cannot write accessors: "` + filepath.Join(dir, DefaultOutput) + `" is not a regular file (symbolic link)`
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, pipes := tt.setup(t)
			before, _ := os.Lstat(filepath.Join(dir, DefaultOutput))
			err := returnsInTime(t, pipes, func() error { return Write(dir, DefaultOutput) })
			require.Error(t, err)
			assert.Equal(t, tt.wantErr(dir), err.Error())
			if before != nil {
				after, err := os.Lstat(filepath.Join(dir, DefaultOutput))
				require.NoError(t, err)
				assert.Equal(t, before.Mode(), after.Mode(), "the output is left as it was")
			}
			err = returnsInTime(t, pipes, func() error { _, err := Generate(dir, DefaultOutput); return err })
			if tt.output {
				assert.NoError(t, err, "Generate does not read the output")
			} else {
				assert.EqualError(t, err, tt.wantErr(dir), "Generate refuses it too")
			}
		})
	}
}
