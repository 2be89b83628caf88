package components

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrUsage is wrapped by the errors of Run about the command line, which Run has reported to stderr.
var ErrUsage = errors.New("bad usage")

// Run is the command line of a provider's components generator (`go run ./hack/components` in `make
// generate`): it parses args (-config DIR, default cfg.ConfigDir; -o FILE, default
// DIR/infrastructure-components.yaml), reporting flag errors to stderr, and writes the components of cfg.
func Run(cfg Config, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("components", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configDir := fs.String("config", cfg.ConfigDir, "folder holding crd/bases, rbac and webhook")
	out := fs.String("o", "", "output file (default CONFIG/infrastructure-components.yaml)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %q\n", fs.Args())
		fs.Usage()
		return ErrUsage
	}
	if *out == "" {
		*out = filepath.Join(*configDir, "infrastructure-components.yaml")
	}
	cfg.ConfigDir = *configDir
	data, err := Build(cfg)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return fmt.Errorf("cannot write %q: %w", *out, err)
	}
	return nil
}

// Main runs Run on the process's arguments and exits: 0 on success or -h, 2 on bad usage, 1 on any other
// error, which it prints.
func Main(cfg Config) {
	err := Run(cfg, os.Args[1:], os.Stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, ErrUsage):
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "components: %v\n", err)
		os.Exit(1)
	}
}
