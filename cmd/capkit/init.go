package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/capkit/capkit/internal/scaffold"
)

// initUsage is the help text of "capkit init".
const initUsage = `usage: capkit init DIR --module MODULE --provider NAME [--domain DOMAIN]
                   [--capkit-version V] [--capkit-replace PATH] [--force]

Writes a new Cluster API infrastructure provider repository into DIR (created when missing; it must be empty
unless --force): API types of <Name>Cluster, <Name>Machine and their templates on the v1beta2 contract,
webhooks, a cloud interface with an in-memory implementation, services on ensure.Exists, controllers,
the manager, CRDs, RBAC, clusterctl files, tests, a Makefile, a README and .ci/run. Then, in DIR:
"make test" (its first run resolves go.sum with go mod tidy) and "make check".

The go.mod requires capkit at --capkit-version, default the released version of this capkit ("capkit version";
a capkit installed with go install ...@VERSION requires that VERSION). It replaces capkit with a local checkout
only when asked: --capkit-replace PATH adds "replace github.com/capkit/capkit => PATH" (an absolute path, or one
starting with ./ or ../ from DIR; quoted when it holds a space or "//"), e.g. --capkit-replace "$PWD" when running "go run ./cmd/capkit init" in a
checkout whose changes are not released.
Nothing is written outside DIR: a symbolic link under DIR is followed only when it stays inside DIR, and a file of
the scaffold that is a symbolic link is refused.
exit codes: 0 written, 1 cannot write, 2 bad usage or invalid options

flags:`

// runInit implements "capkit init".
func runInit(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("capkit init", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, initUsage)
		fl.PrintDefaults()
	}
	var o scaffold.Options
	fl.StringVar(&o.Module, "module", "", "the Go `MODULE` path of the new repository, e.g. github.com/acme/cluster-api-provider-acme")
	fl.StringVar(&o.Provider, "provider", "", "the provider's lower-case `NAME`, e.g. acme (kinds AcmeCluster, AcmeMachine, ...)")
	fl.StringVar(&o.Domain, "domain", scaffold.DefaultDomain, "the API group's `DOMAIN`: the group is infrastructure.DOMAIN")
	fl.StringVar(&o.CapkitVersion, "capkit-version", "", "the capkit module `VERSION` go.mod requires (default: capkit version's)")
	fl.StringVar(&o.CapkitReplace, "capkit-replace", "", "a capkit checkout `PATH` for a replace directive in go.mod (none by default)")
	force := fl.Bool("force", false, "write into a DIR that is not empty, overwriting the scaffold's files")
	// DIR comes first; flags may follow it.
	var dir string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if dir == "" && fl.NArg() > 0 {
		dir = fl.Arg(0)
	} else if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "capkit init: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	if dir == "" {
		fmt.Fprintln(stderr, "capkit init: want DIR")
		fl.Usage()
		return 2
	}
	files, err := scaffold.Init(o)
	if err != nil {
		fmt.Fprintf(stderr, "capkit init: %v\n", flagError(err))
		return 2
	}
	if !*force {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "capkit init: cannot read DIR %q: %v\n", dir, err)
			return 1
		}
		if len(entries) > 0 {
			fmt.Fprintf(stderr, "capkit init: cannot write into DIR %q: not empty (use --force to write the scaffold's files anyway)\n", dir)
			return 1
		}
	}
	if err := scaffold.Write(dir, files, *force); err != nil {
		fmt.Fprintf(stderr, "capkit init: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "capkit init: wrote %d files of provider %q into %s; next: cd %s && make test\n", len(files), o.Provider, dir, dir)
	return 0
}

// flagError names the command-line flag of an option in err.
func flagError(err error) error {
	msg := err.Error()
	for field, flagName := range map[string]string{"Module": "--module", "Provider": "--provider", "Domain": "--domain",
		"CapkitVersion": "--capkit-version", "CapkitReplace": "--capkit-replace"} {
		if strings.HasPrefix(msg, "cannot use "+field+" ") {
			return fmt.Errorf("cannot use %s%s", flagName, strings.TrimPrefix(msg, "cannot use "+field))
		}
	}
	return err
}
