package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/capkit/capkit/cloudinit"
)

const renderUsage = `usage: capkit render [flags] PATH

Renders cloud-config bootstrap data (as the kubeadm bootstrap provider writes it) to a bash
script on standard output. PATH must be a regular file of at most --max-size bytes, or - for
standard input (read up to the same limit): a folder, a named pipe or a device is refused
before anything is read. Unsupported modules are errors
unless --lenient is given, in which case they are listed on standard error. Exit codes: 0
rendered, 2 unreadable, too large, malformed or rejected input, or bad usage.

flags:`

// varsFlag collects repeated --var key=value flags.
type varsFlag map[string]string

func (v varsFlag) String() string { return "" }

func (v varsFlag) Set(s string) error {
	key, value, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	v[key] = value
	return nil
}

// sizeFlag is a positive number of bytes.
type sizeFlag int

func (s *sizeFlag) String() string { return strconv.Itoa(int(*s)) }

func (s *sizeFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return errors.New("must be a positive number of bytes")
	}
	*s = sizeFlag(n)
	return nil
}

// stdin is what PATH "-" reads; tests replace it.
var stdin io.Reader = os.Stdin

// readLimited reads r to its end, or fails once it has read more than limit bytes.
func readLimited(r io.Reader, limit int) ([]byte, error) {
	n := int64(limit) + 1
	if int64(limit) >= math.MaxInt64-1 {
		n = math.MaxInt64
	}
	data, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("it is larger than the limit of %d bytes (--max-size)", limit)
	}
	return data, nil
}

// readUserData reads standard input when path is "-", else the regular file path, refusing anything else before it is opened (a named
// pipe would block, a device may never end) and reading at most limit bytes and one more, to tell
// that it is larger.
func readUserData(path string, limit int) ([]byte, error) {
	if path == "-" {
		return readLimited(stdin, limit)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regularFile(fi.Mode()); err != nil {
		return nil, err
	}
	// O_NONBLOCK: if path became a named pipe since Stat, opening it does not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regularFile(fi.Mode()); err != nil {
		return nil, err
	}
	return readLimited(f, limit)
}

// regularFile says what a file is when it is not a regular file.
func regularFile(m fs.FileMode) error {
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("it is a folder, not a regular file")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("it is a named pipe, not a regular file")
	case m&fs.ModeSocket != 0:
		return errors.New("it is a socket, not a regular file")
	case m&fs.ModeDevice != 0:
		return errors.New("it is a device, not a regular file")
	}
	return errors.New("it is not a regular file")
}

// runRender implements "capkit render".
func runRender(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("capkit render", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintln(stderr, renderUsage)
		flags.PrintDefaults()
	}
	lenient := flags.Bool("lenient", false, "skip unsupported modules, fields and values and list them on standard error")
	root := flags.String("root", "", "write every file under `DIR` (owners are then not applied)")
	sentinel := flags.String("sentinel", cloudinit.DefaultSentinel, "`PATH` written once every step succeeded; empty for none")
	dryRun := flags.Bool("dry-run", false, "make the script print the commands that change the system instead of running them")
	vars := varsFlag{}
	flags.Var(vars, "var", "jinja variable `KEY=VALUE`, repeatable (for example local_hostname=node-0)")
	maxSize := sizeFlag(cloudinit.DefaultMaxSize)
	flags.Var(&maxSize, "max-size", "the most `BYTES` of user data read, and of each document decoded from it (4 times that for decoded values)")

	// Accept flags before and after PATH.
	var paths []string
	for {
		if err := flags.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if flags.NArg() == 0 {
			break
		}
		paths = append(paths, flags.Arg(0))
		args = flags.Args()[1:]
	}
	if len(paths) != 1 {
		fmt.Fprintf(stderr, "capkit render: want one PATH, got %d\n", len(paths))
		flags.Usage()
		return 2
	}

	data, err := readUserData(paths[0], int(maxSize))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		fmt.Fprintf(stderr, "capkit render: cannot read %q: %v\n", paths[0], err)
		return 2
	}
	popts := []cloudinit.ParseOption{cloudinit.WithVariables(vars), cloudinit.WithMaxSize(int(maxSize))}
	if *lenient {
		popts = append(popts, cloudinit.WithLenient())
	}
	cfg, err := cloudinit.Parse(data, popts...)
	if err != nil {
		fmt.Fprintf(stderr, "capkit render: %s: %v\n", paths[0], err)
		return 2
	}
	for _, s := range cfg.Skipped {
		fmt.Fprintf(stderr, "capkit render: skipped %s\n", s)
	}
	ropts := []cloudinit.RenderOption{cloudinit.WithSentinel(*sentinel)}
	if *root != "" {
		ropts = append(ropts, cloudinit.WithRoot(*root))
	}
	if *dryRun {
		ropts = append(ropts, cloudinit.WithDryRun(""))
	}
	script, err := cloudinit.Render(cfg, ropts...)
	if err != nil {
		fmt.Fprintf(stderr, "capkit render: %s: %v\n", paths[0], err)
		return 2
	}
	if _, err := stdout.Write(script); err != nil {
		fmt.Fprintf(stderr, "capkit render: cannot write the script: %v\n", err)
		return 2
	}
	return 0
}
