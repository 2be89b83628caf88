//go:build unix

package clusterctl_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

// TestReadYAMLFileRefusesNonRegularFile: a named pipe is refused before it is read, instead of waiting for a writer.
func TestReadYAMLFileRefusesNonRegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	// A writer that feeds valid YAML once a reader opens the pipe, so that reading it would succeed.
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = w.WriteString("apiVersion: v1\nkind: A\n")
			_ = w.Close()
		}
		// EPIPE: a reader opened the pipe and closed it unread (ReadYAMLFile looked at it and refused it).
		if errors.Is(err, syscall.EPIPE) {
			err = nil
		}
		done <- err
	}()
	t.Cleanup(func() {
		// Release the writer if ReadYAMLFile never opened the pipe.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		require.NoError(t, err)
		assert.NoError(t, <-done, "the writer opened the pipe")
		_ = r.Close()
	})

	_, err := clusterctl.ReadYAMLFile(fifo)
	require.Error(t, err)
	assert.Equal(t, fifo+": cannot read: not a regular file (named pipe)", err.Error())
}
