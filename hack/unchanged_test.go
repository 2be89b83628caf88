package hack_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnchangedFailsWhenACommandChangesTheTree: .ci/run runs make test and make demo through hack/unchanged.sh, which
// must fail when the command adds a go.sum line or writes a file into the repository (a fresh clone's first make demo
// added 74 go.sum lines), pass when the tree stays as it was (bin/ and ignored files may change), and pass on a
// command's failure.
func TestUnchangedFailsWhenACommandChangesTheTree(t *testing.T) {
	script, err := filepath.Abs("unchanged.sh")
	require.NoError(t, err)
	tests := []struct {
		name    string
		command string
		code    int
		message string
	}{
		{"a go.sum line added", "echo 'example.com/m v1.0.0/go.mod h1:x=' >> go.sum", 1, "changed the tree"},
		{"a file written into the repository", "echo x > demo", 1, "?? demo"},
		{"a tracked file removed", "rm go.sum", 1, "changed the tree"},
		{"nothing changed", "go_sum=$(cat go.sum)", 0, ""},
		{"only bin/ and ignored files", "mkdir -p bin && echo x > bin/tool && echo x > out.log", 0, ""},
		{"the command fails", "exit 3", 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			git := func(args ...string) {
				cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s", out)
			}
			git("init", "-q")
			require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), []byte("example.com/a v1.0.0 h1:y=\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644))
			git("add", ".")
			git("commit", "-q", "-m", "init")

			cmd := exec.Command("bash", script, "sh", "-c", tt.command)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := errors.AsType[*exec.ExitError](err); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code, "%s", out)
			assert.Contains(t, string(out), tt.message)
		})
	}
}
