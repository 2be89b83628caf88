package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/capkit/capkit/cloudinit"
)

const renderUsage = `usage: capkit render [flags] PATH

Renders cloud-config bootstrap data (as the kubeadm bootstrap provider writes it) to a bash
script on standard output. Unsupported modules are errors unless --lenient is given, in which
case they are listed on standard error. Exit codes: 0 rendered, 2 unreadable, malformed or
rejected input, or bad usage.

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

	data, err := os.ReadFile(paths[0])
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		fmt.Fprintf(stderr, "capkit render: cannot read %q: %v\n", paths[0], err)
		return 2
	}
	popts := []cloudinit.ParseOption{cloudinit.WithVariables(vars)}
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
