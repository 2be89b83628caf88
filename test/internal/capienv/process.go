package capienv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrExited is returned by Process.Stop and Process.CheckRunning when the process ended before Stop.
var ErrExited = errors.New("process exited before it was stopped")

// Process is a subprocess whose standard output and error go to a log file.
type Process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	log     *os.File
	done    chan struct{}

	mu       sync.Mutex
	stopping bool
	waitErr  error
}

// StartProcess starts path with args, appending its output to the file logPath, and returns at once.
func StartProcess(name, path string, args []string, logPath string) (*Process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open log file %q of %q: %w", logPath, name, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("cannot start %q (%q): %w", name, path, err)
	}
	p := &Process{name: name, logPath: logPath, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		_ = log.Close()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// Name returns the name the process was started with.
func (p *Process) Name() string { return p.name }

// LogPath returns the file holding the process's output.
func (p *Process) LogPath() string { return p.logPath }

// PID returns the process ID.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// CheckRunning returns nil while the process runs, and an error wrapping ErrExited, with its exit status,
// once it has ended without Stop.
func (p *Process) CheckRunning() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopping {
		return nil
	}
	return fmt.Errorf("%q: %w: %v", p.name, ErrExited, exitStatus(p.waitErr))
}

// Stop sends SIGTERM, waits up to grace for the process to end, then sends SIGKILL. It returns an error
// wrapping ErrExited when the process had already ended on its own, and an error when it had to be killed.
// Stop is safe to call more than once.
func (p *Process) Stop(grace time.Duration) error {
	if err := p.CheckRunning(); err != nil {
		return err
	}
	p.mu.Lock()
	already := p.stopping
	p.stopping = true
	p.mu.Unlock()
	if already {
		<-p.done
		return nil
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("cannot send SIGTERM to %q: %w", p.name, err)
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("cannot kill %q: %w", p.name, err)
	}
	<-p.done
	return fmt.Errorf("cannot stop %q within %s: killed it", p.name, grace)
}

// Tail returns the last n lines of the process's log.
func (p *Process) Tail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read log %q: %v)", p.logPath, err)
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return strings.TrimSpace(err.Error())
}

// Kill ends the process with SIGKILL, as a node that fails or an OOM kill does: nothing of it runs after the
// signal, no deferred write and no graceful shutdown. Kill is safe to call after Stop.
func (p *Process) Kill() error {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("cannot kill %q: %w", p.name, err)
	}
	<-p.done
	return nil
}
