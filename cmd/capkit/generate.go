package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/capkit/capkit/internal/accessorgen"
)

// generateUsage is the help text of "capkit generate".
const generateUsage = `usage: capkit generate accessors [--output NAME] DIR...

Writes, in each package folder DIR, the contract accessor methods of its root object types
(+kubebuilder:object:root=true, not *List): GetConditions/SetConditions, IsProvisioned/SetProvisioned,
Get/SetControlPlaneEndpoint, Get/SetFailureDomains, Get/SetProviderID, Get/SetAddresses,
Get/SetStatusFailureDomain, Get/SetResourceIDs, Get/SetProviderIDList and Get/SetStatusReplicas, each for the
spec or status field of that JSON name and contract type. A method the package declares by hand is not
generated; a type marked +capkit:accessors=false is skipped. The file is left untouched when current and
removed when nothing is to be generated; a file of that name that capkit did not generate is never overwritten.
Run it from "make generate", after controller-gen. Each Go file is read only when it is a regular file of at
most 4 MiB; an output that is not a regular file (a symbolic link, a named pipe) is refused.
exit codes: 0 written, 1 a type cannot get its accessors or a folder cannot be read, 2 bad usage

flags:`

// runGenerate implements "capkit generate GENERATOR ...".
func runGenerate(args []string, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "accessors" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stderr, generateUsage)
			return 0
		}
		if len(args) > 0 {
			fmt.Fprintf(stderr, "capkit generate: unknown generator %q\n", args[0])
		}
		fmt.Fprintln(stderr, generateUsage)
		return 2
	}
	fl := flag.NewFlagSet("capkit generate accessors", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, generateUsage)
		fl.PrintDefaults()
	}
	output := fl.String("output", accessorgen.DefaultOutput, "the generated file's `NAME` in each DIR")
	if err := fl.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() == 0 {
		fmt.Fprintln(stderr, "capkit generate accessors: want at least one DIR")
		fl.Usage()
		return 2
	}
	code := 0
	for _, dir := range fl.Args() {
		if err := accessorgen.Write(dir, *output); err != nil {
			fmt.Fprintf(stderr, "capkit generate accessors: %v\n", err)
			code = 1
		}
	}
	return code
}
