// Command capkit checks Cluster API provider files against the provider contract and renders
// cloud-config bootstrap data to bash.
//
//	capkit check PATH...        check CRDs and clusterctl release files
//	capkit render [flags] PATH  render a cloud-config to a bash script
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

const usage = `usage:
  capkit check PATH...          check CRD and clusterctl YAML files or folders against the CAPI contract
  capkit render [flags] PATH    render cloud-config bootstrap data to a bash script (capkit render -h)
exit codes: 0 clean, 1 violations found, 2 unreadable, malformed or too large input or bad usage`

// checkMemoryLimit is the soft memory limit of "capkit check" (see runtime/debug.SetMemoryLimit) unless GOMEMLIMIT
// sets one: the bounds of lint.ReadYAML bound the live memory, and the limit makes the garbage collector keep the
// process near it instead of at twice of it. It is no hard limit: a larger check still completes, more slowly.
const checkMemoryLimit = 100 << 20

func main() {
	if len(os.Args) > 1 && os.Args[1] == "check" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(checkMemoryLimit)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "render":
		return runRender(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "capkit: unknown command %q\n%s\n", args[0], usage)
		return 2
	}
}
