package capienv_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/test/internal/capienv"
)

func startShell(t *testing.T, script string) *capienv.Process {
	t.Helper()
	p, err := capienv.StartProcess("sh", "/bin/sh", []string{"-c", script}, filepath.Join(t.TempDir(), "sh.log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop(time.Second) })
	return p
}

func TestProcessStopsOnSIGTERM(t *testing.T) {
	p := startShell(t, "echo started; exec sleep 30")
	require.NoError(t, p.CheckRunning())
	require.NoError(t, p.Stop(5*time.Second))
	select {
	case <-p.Done():
	default:
		t.Fatal("Done must be closed after Stop")
	}
	assert.NoError(t, p.CheckRunning(), "a stopped process is not reported as exited")
	assert.NoError(t, p.Stop(time.Second), "Stop twice")
}

func TestProcessKilledWhenItIgnoresSIGTERM(t *testing.T) {
	p := startShell(t, "trap '' TERM; echo ready; exec sleep 30")
	require.Eventually(t, func() bool { return p.Tail(1) == "ready" }, 5*time.Second, 10*time.Millisecond)
	err := p.Stop(200 * time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "killed")
	<-p.Done()
}

func TestProcessThatExitsOnItsOwn(t *testing.T) {
	p := startShell(t, "echo one; echo two; echo boom >&2; exit 3")
	<-p.Done()
	err := p.CheckRunning()
	require.ErrorIs(t, err, capienv.ErrExited)
	assert.Contains(t, err.Error(), "exit status 3")
	require.ErrorIs(t, p.Stop(time.Second), capienv.ErrExited, "Stop reports the early exit")
	assert.Equal(t, "two\nboom", p.Tail(2), "stdout and stderr go to the log")
	assert.Equal(t, "one\ntwo\nboom", p.Tail(10))
}

func TestStartProcessMissingBinary(t *testing.T) {
	_, err := capienv.StartProcess("none", filepath.Join(t.TempDir(), "none"), nil, filepath.Join(t.TempDir(), "none.log"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"none"`)
}

// Kill ends even a process that ignores SIGTERM, at once and without its shutdown: the "ready" trap never runs.
func TestProcessKill(t *testing.T) {
	p := startShell(t, "trap 'echo graceful; exit 0' TERM; echo ready; while :; do sleep 0.05; done")
	require.Eventually(t, func() bool { return p.Tail(1) == "ready" }, 5*time.Second, 10*time.Millisecond)
	start := time.Now()
	require.NoError(t, p.Kill())
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, "ready", p.Tail(1), "no graceful shutdown after SIGKILL")
	assert.NoError(t, p.CheckRunning(), "a killed process is not reported as exited on its own")
}

// Usage reads a busy process's CPU time and its peak memory, which only grows.
func TestProcessUsage(t *testing.T) {
	p := startShell(t, `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; echo busy; sleep 30`)
	require.Eventually(t, func() bool { return p.Tail(1) == "busy" }, 30*time.Second, 10*time.Millisecond)
	u, err := p.Usage()
	require.NoError(t, err)
	assert.Greater(t, u.CPU, 50*time.Millisecond, "300,000 shell loop iterations take CPU")
	assert.Less(t, u.CPU, 30*time.Second)
	assert.Greater(t, u.PeakRSS, int64(200<<10), "a shell holds more than 200 KiB")
	assert.Less(t, u.PeakRSS, int64(1<<30))
}
