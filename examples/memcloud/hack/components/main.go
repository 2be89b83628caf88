package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/capkit/capkit/contract/components"
)

// errUsage is wrapped by the errors of run about the command line, which the flag package has reported.
var errUsage = errors.New("bad usage")

func main() {
	err := run(os.Args[1:], os.Stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "components: %v\n", err)
		os.Exit(1)
	}
}

// run parses the flags in args, reporting flag errors to stderr, and writes memcloud's components.
func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("components", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configDir := fs.String("config", filepath.Join("examples", "memcloud", "config"), "folder holding crd/bases, rbac and webhook")
	out := fs.String("o", "", "output file (default CONFIG/infrastructure-components.yaml)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %q\n", fs.Args())
		fs.Usage()
		return errUsage
	}
	if *out == "" {
		*out = filepath.Join(*configDir, "infrastructure-components.yaml")
	}
	data, err := components.Build(config(*configDir))
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return fmt.Errorf("cannot write %q: %w", *out, err)
	}
	return nil
}

// config returns memcloud's components Config for the config folder configDir.
func config(configDir string) components.Config {
	return components.Config{
		Name:      "memcloud",
		Image:     "${MEMCLOUD_IMAGE:=capkit/memcloud:dev}",
		ConfigDir: configDir,
		Generator: "go run ./examples/memcloud/hack/components",
	}
}
