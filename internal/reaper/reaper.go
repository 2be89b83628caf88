package reaper

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

const (
	// EnvRun names the environment variable that marks the processes started after Start; its value is the
	// token of the process's reaper.
	EnvRun = "CAPKIT_TESTENV_RUN"
	// envServe and argv0 make a run of the executable the reaper (see init).
	envServe = "CAPKIT_TESTENV_REAPER"
	argv0    = "capkit-testenv-reaper"
	// tokenBytes is the size of a token before hex encoding.
	tokenBytes = 16
	// maxPath bounds a path given to RemoveOnExit (Linux's PATH_MAX), maxPaths how many the reaper keeps.
	maxPath  = 4096
	maxPaths = 4096
)

var (
	once     sync.Once
	startErr error
	// held is the write end of the reaper's standard input: kept reachable (an unreachable os.File is closed by
	// its finalizer, which the reaper would take for this process's end) and open until the process ends.
	held *os.File
	// heldMu serializes the writes of RemoveOnExit to held.
	heldMu sync.Mutex
)

// Start starts, once per process, the reaper of the processes this process starts from now on, and marks them
// with EnvRun. With killWithParent, the reaper also kills this process when its parent ends. Later calls return
// the first call's result.
func Start(killWithParent bool) error {
	once.Do(func() { startErr = start(killWithParent) })
	return startErr
}

// RemoveOnExit has the reaper remove path, and all it holds, when this process ends without removing it: after
// it killed the marked processes, whose files (etcd's data, say) these are. The caller still removes path when it
// stops them itself; the reaper then finds nothing to remove. path must be absolute and clean. Before Start, and
// where the reaper does not run, it does nothing.
func RemoveOnExit(path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	if held == nil {
		return nil
	}
	if _, err := held.WriteString(path + "\n"); err != nil {
		return fmt.Errorf("cannot give %q to the reaper: %w", path, err)
	}
	return nil
}

// checkPath returns an error naming path when the reaper would not remove it: not absolute, not clean, the root,
// too long or holding a newline (which ends a path in the reaper's input).
func checkPath(path string) error {
	switch {
	case len(path) > maxPath:
		return fmt.Errorf("cannot remove %.64q... on exit: longer than %d bytes", path, maxPath)
	case strings.ContainsAny(path, "\n\x00"):
		return fmt.Errorf("cannot remove %q on exit: it holds a newline or NUL", path)
	case !filepath.IsAbs(path) || filepath.Clean(path) != path || path == string(filepath.Separator):
		return fmt.Errorf("cannot remove %q on exit: want an absolute, clean path other than the root", path)
	}
	return nil
}

// newToken returns a random token, hex encoded.
func newToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("cannot make the reaper's token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// args are the reaper's arguments after argv0.
type args struct {
	token  string
	owner  int // the process whose end the reaper waits for
	parent int // the owner's parent: when it changes, the reaper kills the owner; 0 to not watch it
}

func (a args) strings() []string {
	return []string{argv0, a.token, strconv.Itoa(a.owner), strconv.Itoa(a.parent)}
}

// parseArgs reads the reaper's arguments (without argv0), bounded before they are parsed.
func parseArgs(in []string) (args, error) {
	if len(in) != 3 {
		return args{}, fmt.Errorf("cannot parse the reaper's arguments: want 3, got %d", len(in))
	}
	a := args{token: in[0]}
	if len(a.token) != 2*tokenBytes {
		return args{}, fmt.Errorf("cannot parse the reaper's token %q: want %d hex digits", a.token, 2*tokenBytes)
	}
	if _, err := hex.DecodeString(a.token); err != nil {
		return args{}, fmt.Errorf("cannot parse the reaper's token %q: %w", a.token, err)
	}
	for i, p := range []*int{&a.owner, &a.parent} {
		s := in[1+i]
		if len(s) > 10 {
			return args{}, fmt.Errorf("cannot parse the reaper's process ID %q: too long", s)
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || (i == 0 && n == 0) {
			return args{}, fmt.Errorf("cannot parse the reaper's process ID %q: want a positive number", s)
		}
		*p = n
	}
	return a, nil
}

// withoutRun returns env without EnvRun: the reaper must not carry the mark of an enclosing run's reaper, which
// would kill it first when both runs end.
func withoutRun(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if len(kv) > len(EnvRun) && kv[:len(EnvRun)+1] == EnvRun+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
