//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/cloudinit"
)

// TestRunRenderRefusesUnboundedInput checks that render reads at most the limit (and one byte more)
// of a regular file and refuses anything else before reading: devices that never end (/dev/zero,
// /dev/urandom), a named pipe (which would block until a writer comes), a folder.
func TestRunRenderRefusesUnboundedInput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "user-data.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	sparse := func(size int64) string {
		p := filepath.Join(t.TempDir(), "big.yaml")
		f, err := os.Create(p)
		require.NoError(t, err)
		_, err = f.WriteString("#cloud-config\n#")
		require.NoError(t, err)
		require.NoError(t, f.Truncate(size))
		require.NoError(t, f.Close())
		return p
	}
	big := sparse(cloudinit.DefaultMaxSize + 1)
	comment := filepath.Join(t.TempDir(), "comment.yaml")
	require.NoError(t, os.WriteFile(comment, []byte("#cloud-config\nruncmd: [a]\n#"+strings.Repeat("a", cloudinit.DefaultMaxSize)+"\n"), 0o600))
	small := writeUserData(t, "#cloud-config\nruncmd: [kubeadm init]\n"+strings.Repeat("#", 200)+"\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"zero", []string{"/dev/zero"}, 2, `capkit render: cannot read "/dev/zero": it is a device, not a regular file`},
		{"urandom", []string{"/dev/urandom"}, 2, `capkit render: cannot read "/dev/urandom": it is a device, not a regular file`},
		{"named pipe", []string{fifo}, 2, `capkit render: cannot read "` + fifo + `": it is a named pipe, not a regular file`},
		{"folder", []string{dir}, 2, `capkit render: cannot read "` + dir + `": it is a folder, not a regular file`},
		{"larger than the default", []string{big}, 2, `capkit render: cannot read "` + big + `": it is larger than the limit of 1048576 bytes (--max-size)`},
		{"larger than --max-size", []string{"--max-size", "100", small}, 2, `capkit render: cannot read "` + small + `": it is larger than the limit of 100 bytes (--max-size)`},
		{"--max-size raises the limit", []string{"--max-size", "2097152", comment}, 0, ""},
		{"--max-size zero", []string{"--max-size", "0", small}, 2, `invalid value "0" for flag -max-size: must be a positive number of bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runRender(tt.args, &stdout, &stderr)
			assert.Equal(t, tt.code, code, "stderr: %s", stderr.String())
			if tt.stderr == "" {
				assert.Empty(t, stderr.String())
				assert.Contains(t, stdout.String(), "#!/bin/bash\n")
				return
			}
			assert.Contains(t, stderr.String(), tt.stderr)
			assert.Empty(t, stdout.String())
		})
	}
}

// PATH "-" reads standard input, bounded by the same limit: `kubectl get secret ... | capkit render -`.
func TestRunRenderReadsStandardInputWithinTheLimit(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		args   []string
		code   int
		stderr string
	}{
		{name: "cloud-config", input: "#cloud-config\nruncmd: [kubeadm init]\n", args: []string{"-"}, code: 0},
		{name: "endless input", input: strings.Repeat("#", 4096), args: []string{"--max-size", "1024", "-"}, code: 2,
			stderr: `capkit render: cannot read "-": it is larger than the limit of 1024 bytes (--max-size)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := stdin
			stdin = strings.NewReader(tt.input)
			t.Cleanup(func() { stdin = old })
			var stdout, stderr bytes.Buffer
			assert.Equal(t, tt.code, runRender(tt.args, &stdout, &stderr), "stderr: %s", stderr.String())
			if tt.code == 0 {
				assert.Contains(t, stdout.String(), "capkit_run 'sh' '-c' 'kubeadm init'")
				return
			}
			assert.Contains(t, stderr.String(), tt.stderr)
		})
	}
}
