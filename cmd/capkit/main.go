// Command capkit is capkit's command-line tool for a provider's repository. It checks Cluster API provider files
// against the provider contract, renders cloud-config bootstrap data to bash, generates the contract accessor methods
// of a provider's API types, and writes a new provider repository.
//
//	capkit check PATH...                 check CRDs and clusterctl release files
//	capkit render [flags] PATH           render a cloud-config to a bash script
//	capkit generate accessors DIR...     write zz_generated.accessors.go in each API package folder
//	capkit init DIR --module M --provider N   write a new provider repository that passes its tests
//	capkit version                       print capkit's release (the version init requires)
//
// "capkit generate accessors" gives each root object type of a package (+kubebuilder:object:root=true) the
// accessor methods of the contract interfaces its spec and status fields support (GetConditions,
// IsProvisioned, GetProviderID, GetResourceIDs and their setters, ...), so a provider writes none by hand;
// a method it declares itself is not generated. Run it from "make generate":
//
//	go run github.com/capkit/capkit/cmd/capkit generate accessors ./api/v1beta2
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
  capkit generate accessors DIR...
                                write the contract accessor methods of the API types in each package folder
                                (capkit generate -h)
  capkit init DIR --module MODULE --provider NAME [--domain DOMAIN]
                                write a new provider repository in capkit's shape (capkit init -h)
  capkit version                print capkit's release, the capkit version that capkit init requires
exit codes: 0 clean, 1 violations found, 2 unreadable, malformed or too large input or bad usage
(generate: 0 written, 1 cannot generate, 2 bad usage)`

// checkMemoryLimit is the soft memory limit of "capkit check" (see runtime/debug.SetMemoryLimit) unless GOMEMLIMIT
// sets one: the bounds of clusterctl.ReadYAML bound the live memory, and the limit makes the garbage collector keep the
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
	case "generate":
		return runGenerate(args[1:], stderr)
	case "init":
		return runInit(args[1:], stdout, stderr)
	case "version":
		return runVersion(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "capkit: unknown command %q\n%s\n", args[0], usage)
		return 2
	}
}
