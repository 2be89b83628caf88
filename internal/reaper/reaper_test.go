//go:build linux

package reaper

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArgs(t *testing.T) {
	token := strings.Repeat("ab", tokenBytes)
	for _, tc := range []struct {
		name    string
		in      []string
		want    args
		wantErr string
	}{
		{name: "owner and parent", in: []string{token, "42", "7"}, want: args{token: token, owner: 42, parent: 7}},
		{name: "parent not watched", in: []string{token, "42", "0"}, want: args{token: token, owner: 42}},
		{name: "too few", in: []string{token, "42"}, wantErr: "want 3, got 2"},
		{name: "short token", in: []string{"abcd", "42", "0"}, wantErr: `token "abcd"`},
		{name: "token not hex", in: []string{strings.Repeat("zz", tokenBytes), "42", "0"}, wantErr: "token"},
		{name: "owner zero", in: []string{token, "0", "0"}, wantErr: `process ID "0"`},
		{name: "negative parent", in: []string{token, "42", "-1"}, wantErr: `process ID "-1"`},
		{name: "too long", in: []string{token, strings.Repeat("9", 40), "0"}, wantErr: "too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArgs(tc.in)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.in, got.strings()[1:], "the arguments round-trip")
		})
	}
}

func TestHasVar(t *testing.T) {
	for _, tc := range []struct {
		name    string
		environ string
		want    bool
	}{
		{name: "first", environ: "A=1\x00B=2\x00", want: true},
		{name: "last without a final NUL", environ: "B=2\x00A=1", want: true},
		{name: "value is a prefix of another", environ: "A=12\x00", want: false},
		{name: "name is a suffix of another", environ: "XA=1\x00", want: false},
		{name: "empty", environ: "", want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, hasVar([]byte(tc.environ), "A", "1"))
		})
	}
}

func TestParseStatParent(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		want       int
		wantErr    bool
	}{
		{name: "plain", stat: "123 (sleep) S 45 123 45 0 -1", want: 45},
		{name: "command with spaces and parentheses", stat: "123 (a) b) (c) R 9 1 1", want: 9},
		{name: "no command", stat: "123 sleep S 45", wantErr: true},
		{name: "no parent", stat: "123 (sleep) S", wantErr: true},
		{name: "parent not a number", stat: "123 (sleep) S x", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStatParent([]byte(tc.stat))
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestWithoutRun(t *testing.T) {
	got := withoutRun([]string{"A=1", EnvRun + "=x", EnvRun + "X=y", "B=2"})
	assert.Equal(t, []string{"A=1", EnvRun + "X=y", "B=2"}, got)
}

// ownerHelperEnv makes TestReaperKillsWhatItsOwnerStarted, run again by itself, the owner it kills.
const ownerHelperEnv = "CAPKIT_REAPER_TEST_OWNER"

// owner is the owner that TestReaperKillsWhatItsOwnerStarted kills: it starts the reaper, then a sleep, prints the
// sleep's process ID and hangs.
func owner(t *testing.T, mode string) {
	require.NoError(t, Start(mode == "watch-parent"))
	dir, err := os.MkdirTemp("", "capkit-reaper-test-")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data"), []byte("etcd's, say"), 0o600))
	require.NoError(t, RemoveOnExit(dir))
	fmt.Printf("dir %s\n", dir)
	sleep := exec.Command("sleep", "300")
	require.NoError(t, sleep.Start())
	fmt.Printf("sleep %d\n", sleep.Process.Pid)
	time.Sleep(2 * time.Minute)
	t.Fatal("the helper was not stopped")
}

// TestReaperKillsWhatItsOwnerStarted kills the reaper's owner, or its parent, and checks that what the owner
// started after Start ends with it, that the folder it gave RemoveOnExit is removed, and that a process without the
// owner's mark does not end.
func TestReaperKillsWhatItsOwnerStarted(t *testing.T) {
	if mode := os.Getenv(ownerHelperEnv); mode != "" {
		owner(t, mode)
		return
	}
	for _, tc := range []struct {
		name, mode string
		stop       func(sh, owner int) error
	}{
		{name: "owner killed", mode: "plain", stop: func(_, owner int) error { return syscall.Kill(owner, syscall.SIGKILL) }},
		{name: "owner's parent ends", mode: "watch-parent", stop: func(sh, _ int) error { return syscall.Kill(sh, syscall.SIGTERM) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bystander := exec.Command("sleep", "300")
			bystander.Env = append(os.Environ(), EnvRun+"="+strings.Repeat("0", 2*tokenBytes))
			require.NoError(t, bystander.Start())
			t.Cleanup(func() { _ = bystander.Process.Kill(); _ = bystander.Wait() })

			sh := exec.Command("/bin/sh", "-c", `"$@"; exit $?`, "sh", os.Args[0], "-test.run=^TestReaperKillsWhatItsOwnerStarted$", "-test.count=1")
			sh.Env = append(os.Environ(), ownerHelperEnv+"="+tc.mode)
			sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := sh.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, sh.Start())
			t.Cleanup(func() { _ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) })
			sc := bufio.NewScanner(out)
			sleepPID, dir := 0, ""
			for sleepPID == 0 && sc.Scan() {
				if d, ok := strings.CutPrefix(sc.Text(), "dir "); ok {
					dir = d
					t.Cleanup(func() { _ = os.RemoveAll(d) })
				}
				if s, ok := strings.CutPrefix(sc.Text(), "sleep "); ok {
					sleepPID, err = strconv.Atoi(s)
					require.NoError(t, err)
				}
			}
			require.NotZero(t, sleepPID, "the helper did not start its sleep")
			require.DirExists(t, dir)
			t.Cleanup(func() { _ = syscall.Kill(sleepPID, syscall.SIGKILL) })
			owner := childOf(t, sh.Process.Pid)
			require.True(t, alive(sleepPID))

			require.NoError(t, tc.stop(sh.Process.Pid, owner))
			assert.Eventually(t, func() bool { return !alive(sleepPID) && !alive(owner) }, 10*time.Second, 50*time.Millisecond,
				"the owner (%d) and its sleep (%d) must end", owner, sleepPID)
			assert.True(t, alive(bystander.Process.Pid), "a process of another run must not be killed")
			assert.Eventually(t, func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) }, 10*time.Second, 50*time.Millisecond,
				"the folder given to RemoveOnExit must be removed")
			_ = sh.Wait()
		})
	}
}

// childOf returns the child of pid.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	require.NoError(t, err)
	f := strings.Fields(string(b))
	require.Len(t, f, 1, "the shell runs one child")
	child, err := strconv.Atoi(f[0])
	require.NoError(t, err)
	return child
}

// alive reports whether pid runs (a zombie has ended).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z'
}

func TestCheckPath(t *testing.T) {
	for _, tc := range []struct {
		name, path, wantErr string
	}{
		{name: "absolute and clean", path: "/tmp/capkit-envtest-1"},
		{name: "relative", path: "tmp/x", wantErr: `"tmp/x" on exit: want an absolute`},
		{name: "not clean", path: "/tmp/../etc", wantErr: `"/tmp/../etc" on exit: want an absolute`},
		{name: "the root", path: "/", wantErr: `"/" on exit: want an absolute, clean path other than the root`},
		{name: "empty", path: "", wantErr: `"" on exit`},
		{name: "a newline", path: "/tmp/a\n/etc", wantErr: "holds a newline"},
		{name: "too long", path: "/" + strings.Repeat("a", maxPath), wantErr: "longer than 4096 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPath(tc.path)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
		})
	}
}

// The reaper reads one path a line; what RemoveOnExit would refuse, an overlong line and an unended last line (the
// owner died while writing it) are skipped, and the paths kept are bounded.
func TestRemovalsRead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{name: "paths", in: "/a\n/b/c\n", want: []string{"/a", "/b/c"}},
		{name: "refused ones skipped", in: "/a\nrelative\n/\n/b/../c\n\n/d\n", want: []string{"/a", "/d"}},
		{name: "an overlong line skipped whole", in: "/" + strings.Repeat("x", 3*maxPath) + "\n/e\n", want: []string{"/e"}},
		{name: "an unended last line dropped", in: "/a\n/b", want: []string{"/a"}},
		{name: "nothing", in: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rs removals
			rs.read(strings.NewReader(tc.in))
			assert.Equal(t, tc.want, rs.paths)
		})
	}
	var rs removals
	rs.read(strings.NewReader(strings.Repeat("/p\n", maxPaths+10)))
	assert.Len(t, rs.paths, maxPaths)
}
