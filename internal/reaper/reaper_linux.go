package reaper

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

const (
	// maxEnviron bounds what is read of a process's environment (Linux's limit on one variable is 128 KiB, on
	// all of them a quarter of the stack limit).
	maxEnviron = 4 << 20
	// maxStat bounds what is read of /proc/PID/stat.
	maxStat = 4 << 10
	// pollInterval is how often the reaper checks that its owner and the owner's parent are still there.
	pollInterval = 250 * time.Millisecond
	// reapRounds bounds the scans for marked processes (one that forks while it is killed leaves a child).
	reapRounds = 5
)

// init makes this run of the executable the reaper when Start started it so; it never returns then.
func init() {
	if os.Getenv(envServe) != "1" || len(os.Args) != 4 || os.Args[0] != argv0 {
		return
	}
	a, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
		os.Exit(2)
	}
	os.Exit(serve(a, os.Stdin))
}

func start(killWithParent bool) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot start the reaper: %w", err)
	}
	token, err := newToken()
	if err != nil {
		return err
	}
	a := args{token: token, owner: os.Getpid()}
	if killWithParent {
		a.parent = os.Getppid()
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("cannot start the reaper: %w", err)
	}
	cmd := &exec.Cmd{
		Path: exe, Args: a.strings(), Dir: "/", Stdin: r,
		Env: append(withoutRun(os.Environ()), envServe+"=1"),
		// Its own process group: a signal to the test run's group (Ctrl-C, a time limit) does not reach it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	_ = r.Close()
	if err != nil {
		_ = w.Close()
		return fmt.Errorf("cannot start the reaper %q: %w", exe, err)
	}
	go func() { _ = cmd.Wait() }() // it ends after this process does, unless it fails
	heldMu.Lock()
	held = w
	heldMu.Unlock()
	if err := os.Setenv(EnvRun, token); err != nil {
		return fmt.Errorf("cannot set %s: %w", EnvRun, err)
	}
	return nil
}

// serve waits for the owner to end (stdin reads end of file, or the reaper's parent changes), killing the owner
// when its parent, if watched, ends; then it kills the processes marked with the token and removes the paths the
// owner gave (RemoveOnExit). It returns the exit code.
func serve(a args, stdin io.Reader) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT)
	eof := make(chan struct{})
	var paths removals
	go func() {
		paths.read(stdin)
		close(eof)
	}()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-eof:
			done = true
		case <-tick.C:
			if os.Getppid() != a.owner {
				done = true // the owner ended and this process was given to another parent
				break
			}
			if a.parent != 0 {
				if p, err := parentOf(a.owner); err == nil && p != a.parent {
					_ = syscall.Kill(a.owner, syscall.SIGKILL) // its pipe closes next: then reap
				}
			}
		}
	}
	reap(a.token)
	paths.remove()
	return 0
}

// removals are the paths the owner gave the reaper to remove once it ended.
type removals struct {
	mu    sync.Mutex
	paths []string
}

// read reads the paths on r, one per line, until r ends. A line that is too long or not a path is skipped, as are
// the paths beyond maxPaths (the owner checked them, see RemoveOnExit).
func (rs *removals) read(r io.Reader) {
	br := bufio.NewReaderSize(r, maxPath+1)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) { // the rest of the line
				_, err = br.ReadSlice('\n')
			}
			continue
		}
		if err != nil {
			return // end of file: the owner ended (a partial last line is dropped)
		}
		p := string(bytes.TrimSuffix(line, []byte("\n")))
		rs.mu.Lock()
		if checkPath(p) == nil && len(rs.paths) < maxPaths {
			rs.paths = append(rs.paths, p)
		}
		rs.mu.Unlock()
	}
}

// remove removes the paths read, ignoring those already gone.
func (rs *removals) remove() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, p := range rs.paths {
		if err := os.RemoveAll(p); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
		}
	}
}

// reap kills the processes marked with token until none is left (or reapRounds scans).
func reap(token string) {
	for range reapRounds {
		pids := marked(token)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// marked returns the processes, other than this one, whose environment holds EnvRun=token. Processes whose
// environment cannot be read (another user's, ended ones) are skipped.
func marked(token string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := readBounded(filepath.Join("/proc", e.Name(), "environ"), maxEnviron)
		if err == nil && hasVar(env, EnvRun, token) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// hasVar reports whether environ (NUL-separated NAME=value entries, as in /proc/PID/environ) holds name=value.
func hasVar(environ []byte, name, value string) bool {
	want := "\x00" + name + "=" + value + "\x00"
	b := make([]byte, 0, len(environ)+2)
	b = append(append(append(b, 0), environ...), 0)
	return bytes.Contains(b, []byte(want))
}

// parentOf returns the parent process ID of pid, from /proc/PID/stat.
func parentOf(pid int) (int, error) {
	b, err := readBounded(filepath.Join("/proc", strconv.Itoa(pid), "stat"), maxStat)
	if err != nil {
		return 0, err
	}
	return parseStatParent(b)
}

// parseStatParent reads the parent process ID in the content of /proc/PID/stat: "pid (comm) state ppid ...",
// where comm may hold spaces and parentheses, so the fields are read after its last ")".
func parseStatParent(stat []byte) (int, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("cannot parse process status %q: no command name", truncate(stat))
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 2 {
		return 0, fmt.Errorf("cannot parse process status %q: no parent", truncate(stat))
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return 0, fmt.Errorf("cannot parse process status %q: %w", truncate(stat), err)
	}
	return ppid, nil
}

func truncate(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
}

// readBounded reads at most limit bytes of path.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return io.ReadAll(io.LimitReader(f, limit))
}
