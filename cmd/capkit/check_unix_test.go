//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fifoWithWriter makes a named pipe at path and a writer that feeds it valid YAML once a reader opens it, so that
// reading it would succeed; the writer is released at the end of the test.
func fifoWithWriter(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			_, _ = w.WriteString("apiVersion: v1\nkind: A\n")
			_ = w.Close()
		}
	}()
	t.Cleanup(func() {
		r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		require.NoError(t, err)
		<-done
		_ = r.Close()
	})
}

// TestCheckRefusesNonRegularFiles: a named pipe called *.yaml is never opened: in a folder it is listed as not
// checked; named as an argument it is refused with exit code 2.
func TestCheckRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "crd.yaml", badCRD)
	pipe := filepath.Join(dir, "pipe.yaml")
	fifoWithWriter(t, pipe)

	code, stdout, stderr := check(dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, pipe+": not checked: not a regular file (named pipe)\n")
	assert.Equal(t, "capkit check: 2 files, 1 violation, 1 not checked (listed above)\n", stderr)

	named := filepath.Join(t.TempDir(), "named.yaml")
	fifoWithWriter(t, named)
	code, stdout, stderr = check(named)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "capkit check: cannot check \""+named+"\": not a regular file or folder (named pipe)\n", stderr)
}
