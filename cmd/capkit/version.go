package main

import (
	"fmt"
	"io"

	"github.com/capkit/capkit/internal/scaffold"
)

// runVersion implements "capkit version": "capkit v0.1.0", and the module version it was built from when that
// differs (go install ...@a-commit).
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "capkit version: unexpected argument %q\nusage: capkit version\n", args[0])
		return 2
	}
	if v := scaffold.ModuleVersion(); v != "" && v != scaffold.Release {
		fmt.Fprintf(stdout, "capkit %s (built from module %s %s)\n", scaffold.Release, scaffold.CapkitModule, v)
		return 0
	}
	fmt.Fprintf(stdout, "capkit %s\n", scaffold.Release)
	return 0
}
