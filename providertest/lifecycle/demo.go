package lifecycle

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Machines is how many Machines of each role a demo creates, as the flag value CONTROL-PLANE+WORKERS (e.g.
// "1+3"); it implements flag.Value.
type Machines struct {
	// ControlPlane and Workers are Spec.ControlPlaneMachines and Spec.WorkerMachines.
	ControlPlane, Workers int
}

// String returns "CONTROL-PLANE+WORKERS".
func (m *Machines) String() string { return fmt.Sprintf("%d+%d", m.ControlPlane, m.Workers) }

// Set parses "CONTROL-PLANE+WORKERS", with at least one control plane machine.
func (m *Machines) Set(s string) error {
	cp, w, ok := strings.Cut(s, "+")
	c, err1 := strconv.Atoi(cp)
	n, err2 := strconv.Atoi(w)
	if !ok || err1 != nil || err2 != nil || c < 1 || n < 0 {
		return fmt.Errorf("invalid machines %q: want CONTROL-PLANE+WORKERS with at least 1 control plane machine, e.g. 1+3", s)
	}
	m.ControlPlane, m.Workers = c, n
	return nil
}

// Total returns the number of Machines.
func (m Machines) Total() int { return m.ControlPlane + m.Workers }

// DemoFlags are the flags every demo has: how many machines (--machines) and how long provisioning, then
// deletion, may take (--timeout).
type DemoFlags struct {
	// Machines is --machines.
	Machines Machines
	// Timeout is --timeout; it must be positive.
	Timeout time.Duration
}

// Parse parses args into f, from the defaults: --machines, --timeout and the flags bind adds (nil: none). It
// refuses stray arguments and a timeout that is not positive; the error names the flag and the value.
func (f *DemoFlags) Parse(args []string, defaults DemoFlags, bind func(fs *flag.FlagSet)) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	*f = defaults
	fs.Var(&f.Machines, "machines", "machines as CONTROL-PLANE+WORKERS")
	fs.DurationVar(&f.Timeout, "timeout", defaults.Timeout, "how long provisioning, then deletion, may take")
	if bind != nil {
		bind(fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case f.Timeout <= 0:
		return fmt.Errorf("invalid --timeout %s: must be positive", f.Timeout)
	}
	return nil
}

// ParseCase is one case of AssertParse: a demo's arguments, and the options they parse to or the error they
// give.
type ParseCase[T any] struct {
	// Name names the subtest.
	Name string
	// Args are the arguments parsed.
	Args []string
	// Want is the options parsed, when WantErr is empty.
	Want T
	// WantErr is a part of the error parsing must give; "" when it must succeed.
	WantErr string
}

// AssertParse runs each case as a subtest of t: parse reads the case's arguments into a zero T, which must then
// equal Want, or fail with an error that contains WantErr. It tests a demo's flags, parsed with DemoFlags.Parse.
func AssertParse[T any](t *testing.T, parse func(o *T, args []string) error, cases []ParseCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var got T
			if msg := tc.mismatch(got, parse(&got, tc.Args)); msg != "" {
				t.Errorf("parse %q: %s", tc.Args, msg)
			}
		})
	}
}

// mismatch says how what a parse gave differs from the case, or returns "" when it does not.
func (tc ParseCase[T]) mismatch(got T, err error) string {
	switch {
	case tc.WantErr != "" && err == nil:
		return fmt.Sprintf("got no error, want one containing %q", tc.WantErr)
	case tc.WantErr != "" && !strings.Contains(err.Error(), tc.WantErr):
		return fmt.Sprintf("got error %q, want one containing %q", err, tc.WantErr)
	case tc.WantErr == "" && err != nil:
		return err.Error()
	case tc.WantErr == "" && !reflect.DeepEqual(got, tc.Want):
		return fmt.Sprintf("got %+v, want %+v", got, tc.Want)
	}
	return ""
}

// Watch makes the Driver of spec on c whose waits print w's table (Spec.OnPoll calls Print, after the
// spec's own OnPoll), and sets w.Driver, and w.Start when it is zero.
func (w *Watcher) Watch(c client.Client, spec Spec) error {
	onPoll := spec.OnPoll
	spec.OnPoll = func(ctx context.Context, p Poll) {
		if onPoll != nil {
			onPoll(ctx, p)
		}
		w.Print(ctx)
	}
	l, err := New(c, spec)
	if err != nil {
		return err
	}
	w.Driver = l
	if w.Start.IsZero() {
		w.Start = time.Now()
	}
	return nil
}

// Provision creates the cluster and waits, as the Phase "provisioning", until it is provisioned; it reports
// whether it was. The error is that of Create.
func (w *Watcher) Provision(ctx context.Context) (bool, error) {
	if err := w.Driver.Create(ctx); err != nil {
		return false, err
	}
	return w.Phase("provisioning", w.Driver.WaitProvisioned), nil
}

// Teardown reads the ownership keys, deletes the cluster as the Phase "deletion", and asks the LeakChecker
// what is left; it reports whether the deletion finished and the leaks. The error is that of a read or of
// the LeakChecker.
func (w *Watcher) Teardown(ctx context.Context) (deleted bool, leaks []string, err error) {
	keys, err := w.Driver.OwnershipKeys(ctx)
	if err != nil {
		return false, nil, err
	}
	deleted = w.Phase("deletion", w.Driver.Delete)
	leaks, err = w.Driver.Leaks(ctx, keys)
	return deleted, leaks, err
}

// Outcome is what a demo's run came to, for its exit status.
type Outcome struct {
	// Provisioned and Deleted tell whether the phases finished within Timeout.
	Provisioned, Deleted bool
	// Timeout is the Spec's Timeout, for the errors.
	Timeout time.Duration
	// Leaks are what the LeakChecker found after the delete; Duplicates the resources created twice.
	Leaks, Duplicates []string
}

// Err returns an error for each phase that did not finish, each leak and each duplicate, joined; nil when
// the run was clean.
func (o Outcome) Err() error {
	var errs []error
	if !o.Provisioned {
		errs = append(errs, fmt.Errorf("the cluster was not provisioned within %s", o.Timeout))
	}
	if !o.Deleted {
		errs = append(errs, fmt.Errorf("the cluster was not deleted within %s", o.Timeout))
	}
	for _, r := range o.Leaks {
		errs = append(errs, fmt.Errorf("leaked %s", r))
	}
	for _, d := range o.Duplicates {
		errs = append(errs, fmt.Errorf("duplicate: %s", d))
	}
	return errors.Join(errs...)
}

// Main is a demo's func main: parse reads args, then run runs with os.Stdout until SIGINT or SIGTERM. It
// returns the exit code: 0 after -h or a clean run, 2 when parse fails, 1 when run fails; errors go to
// stderr after name. The func main of examples/memcloud/cmd/demo is
// os.Exit(lifecycle.Main("demo", os.Args[1:], o.parse, o.run)).
func Main(name string, args []string, parse func(args []string) error, run func(ctx context.Context, out io.Writer) error) int {
	return mainWith(name, args, parse, run, os.Stdout, os.Stderr)
}

func mainWith(name string, args []string, parse func([]string) error, run func(context.Context, io.Writer) error, stdout, stderr io.Writer) int {
	err := parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}
