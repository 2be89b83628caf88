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
