package hack_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFuzzPassesOnlyTheEnginesOwnDeadline: hack/fuzz.sh fails every failing fuzz run but one, in which Go's engine
// reported "context deadline exceeded" as the only failure and wrote no input to the target's corpus.
func TestFuzzPassesOnlyTheEnginesOwnDeadline(t *testing.T) {
	script, err := filepath.Abs("fuzz.sh")
	require.NoError(t, err)
	deadline := "fuzz: elapsed: 30s, execs: 154184 (0/sec)\n--- FAIL: FuzzX (30.13s)\n    context deadline exceeded\nFAIL\n"
	tests := []struct {
		name    string
		output  string
		code    int
		crasher bool // the run writes a new input to testdata/fuzz/FuzzX
		want    int
		says    string
	}{
		{name: "passed", output: "PASS\nok\n", want: 0},
		{name: "the engine's deadline", output: deadline, code: 1, want: 0, says: "reported its own deadline"},
		{name: "the deadline with a new corpus file", output: deadline, code: 1, crasher: true, want: 1},
		{name: "a failing input", output: "--- FAIL: FuzzX (1.2s)\n    x_test.go:9: lines changed\nFAIL\n", code: 1, crasher: true, want: 1},
		{name: "another error", output: "--- FAIL: FuzzX (30.1s)\n    fuzzing process hung or terminated unexpectedly: exit status 2\nFAIL\n", code: 1, want: 1},
		{name: "two failures", output: deadline + "--- FAIL: FuzzY (1s)\n    context deadline exceeded\n", code: 1, want: 1},
		{name: "build failure", output: "# x\n./x.go:1: syntax error\nFAIL x [build failed]\n", code: 2, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "pkg", "testdata", "fuzz", "FuzzX"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "output"), []byte(tt.output), 0o600))
			stub := "#!/usr/bin/env bash\ncat \"$STUB_OUTPUT\"\n"
			if tt.crasher {
				stub += "echo crasher >pkg/testdata/fuzz/FuzzX/abc123\n"
			}
			stub += "exit $STUB_CODE\n"
			goStub := filepath.Join(dir, "go")
			require.NoError(t, os.WriteFile(goStub, []byte(stub), 0o755))
			cmd := exec.Command("bash", script, "./pkg", "FuzzX", "30s")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GO="+goStub, "STUB_OUTPUT="+filepath.Join(dir, "output"), "STUB_CODE="+strconv.Itoa(tt.code))
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, code, string(out))
			if tt.says != "" {
				assert.Contains(t, string(out), tt.says)
			}
		})
	}
}
