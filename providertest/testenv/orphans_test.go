package testenv_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Environment variables of the helper run of TestStoppedRunLeavesNoProcess: what the helper does, and the mark that
// it and every process it starts inherit, by which the test finds them in /proc.
const (
	helperEnv     = "CAPKIT_TESTENV_ORPHAN_HELPER"
	helperMarkEnv = "CAPKIT_TESTENV_ORPHAN_MARK"
	helperReady   = "orphan helper: environment ready"
)

// hang is the test run that TestStoppedRunLeavesNoProcess stops from outside (the same test, run again with
// helperEnv set): this package's TestMain has started an Environment (kube-apiserver and etcd) before it; it says
// so and hangs until it is stopped.
func hang(t *testing.T) {
	fmt.Println(helperReady)
	time.Sleep(2 * time.Minute) // never reached in a passing run: the caller stops it
	t.Fatal("the helper was not stopped")
}

// TestStoppedRunLeavesNoProcess stops a test run whose Environment is up, in each of the ways a run is stopped from
// outside, and checks that no process it started (kube-apiserver, etcd) survives it, and none of their files: before
// the fix, envtest's processes, each in its own process group, outlived every one of them, and later their folders
// (about 120 MiB a run) filled the disk. Linux only, as the reaper.
func TestStoppedRunLeavesNoProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "hang" {
		hang(t)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("the reaper works on Linux only: the processes are found in /proc")
	}
	for _, tc := range []struct {
		name string
		// args are the test binary's flags beyond -test.run.
		args []string
		// stop stops the run: parent is the shell that runs the test binary (as go test does), group its process group.
		stop func(parent, group int) error
	}{
		{name: "SIGTERM to the test binary's parent (go test)", args: []string{"-test.timeout=5m"},
			stop: func(parent, _ int) error { return syscall.Kill(parent, syscall.SIGTERM) }},
		{name: "SIGINT to the process group (Ctrl-C)", args: []string{"-test.timeout=5m"},
			stop: func(_, group int) error { return syscall.Kill(-group, syscall.SIGINT) }},
		{name: "SIGTERM to the process group (a time limit)", args: []string{"-test.timeout=5m"},
			stop: func(_, group int) error { return syscall.Kill(-group, syscall.SIGTERM) }},
		{name: "go test -timeout expires", args: []string{"-test.timeout=2s"}, stop: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mark := randomMark(t)
			t.Cleanup(func() { killMarked(mark) }) // an old reaper-less testenv leaves them: do not leak them here
			// sh stays the test binary's parent, as go test does ("; exit" keeps it from exec'ing the binary).
			args := append([]string{"-c", `"$@"; exit $?`, "sh", os.Args[0], "-test.run=^TestStoppedRunLeavesNoProcess$", "-test.count=1"}, tc.args...)
			cmd := exec.Command("/bin/sh", args...)
			tmp := t.TempDir() // the helper's TMPDIR: envtest's folders go there
			cmd.Env = append(os.Environ(), helperEnv+"=hang", helperMarkEnv+"="+mark, "TMPDIR="+tmp)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, w, err := os.Pipe()
			require.NoError(t, err)
			cmd.Stdout, cmd.Stderr = w, w
			require.NoError(t, cmd.Start())
			require.NoError(t, w.Close())
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			ready, output := watchOutput(out)
			select {
			case <-ready:
			case <-time.After(90 * time.Second):
				t.Fatalf("the helper's environment did not come up: %s", output())
			}
			names := markedNames(mark)
			require.Subset(t, names, []string{"kube-apiserver", "etcd"}, "the helper's processes must be found before it is stopped")

			if tc.stop != nil {
				require.NoError(t, tc.stop(cmd.Process.Pid, cmd.Process.Pid))
			}
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("the helper's shell did not end: %s", output())
			}
			assert.Eventually(t, func() bool { return len(markedNames(mark)) == 0 }, 10*time.Second, 100*time.Millisecond,
				"processes of the stopped run are still running: %v", markedNames(mark))
			assert.Eventually(t, func() bool { return len(entries(t, tmp)) == 0 }, 10*time.Second, 100*time.Millisecond,
				"files of the stopped run are left: %v", entries(t, tmp))
		})
	}
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	names := make([]string, 0, len(des))
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func randomMark(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

// watchOutput reads the helper's output; ready is closed when the helper says its environment is up.
func watchOutput(r io.ReadCloser) (ready <-chan struct{}, output func() string) {
	ch := make(chan struct{})
	lines := make(chan string, 1000)
	go func() {
		defer func() { _ = r.Close() }()
		sc := bufio.NewScanner(r)
		closed := false
		for sc.Scan() {
			if sc.Text() == helperReady && !closed {
				close(ch)
				closed = true
			}
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	return ch, func() string {
		var got []string
		for {
			select {
			case l := <-lines:
				got = append(got, l)
			default:
				return strings.Join(got, "\n")
			}
		}
	}
}

// markedPIDs returns the live processes whose environment holds the helper's mark, found in /proc without any code
// of testenv's.
func markedPIDs(mark string) map[int]string {
	want := []byte("\x00" + helperMarkEnv + "=" + mark + "\x00")
	entries, _ := os.ReadDir("/proc")
	found := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, environ...), want) {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err == nil {
			found[pid] = strings.TrimSpace(string(comm))
		}
	}
	return found
}

// markedNames returns the names of markedPIDs.
func markedNames(mark string) []string {
	var names []string
	for _, n := range markedPIDs(mark) {
		names = append(names, n)
	}
	return names
}

func killMarked(mark string) {
	for pid := range markedPIDs(mark) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
