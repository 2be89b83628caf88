//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunGenerateRefusesNamedPipes: a named pipe called *.go in the package folder, or in place of the output,
// fails "capkit generate accessors" with exit code 1 and an error naming it, at once; before, opening it waited
// for a writer forever. The test gives the command 5 s, then opens the pipe for writing, so as to report the hang.
func TestRunGenerateRefusesNamedPipes(t *testing.T) {
	types := []byte("package api\n\ntype FooMachineSpec struct {\n\tProviderID string `json:\"providerID\"`\n}\n\n" +
		"// +kubebuilder:object:root=true\ntype FooMachine struct {\n\tSpec FooMachineSpec `json:\"spec\"`\n}\n")
	tests := []struct {
		name   string
		pipe   string // in the package folder
		stderr string // after the pipe's path
	}{
		{"a Go file", "pipe.go", `": not a regular file (named pipe)`},
		{"the output", "zz_generated.accessors.go", `" is not a regular file (named pipe)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "types.go"), types, 0o600))
			pipe := filepath.Join(dir, tt.pipe)
			require.NoError(t, syscall.Mkfifo(pipe, 0o600))

			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run([]string{"generate", "accessors", dir}, &stdout, &stderr) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(5 * time.Second):
				t.Errorf("capkit generate accessors still runs after 5 s: it opened the named pipe %q and waits for a writer", pipe)
				code = unblock(t, pipe, done)
			}
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout.String())
			assert.Contains(t, stderr.String(), pipe+tt.stderr)
			fi, err := os.Lstat(pipe)
			require.NoError(t, err)
			assert.Equal(t, os.ModeNamedPipe, fi.Mode().Type(), "the pipe is left in place")
		})
	}
}

// unblock opens the named pipe for writing until the command, which waits on it, returns its exit code on done.
func unblock(t *testing.T, pipe string, done <-chan int) int {
	t.Helper()
	for {
		if w, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = w.Close()
		}
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Millisecond):
		}
	}
}
