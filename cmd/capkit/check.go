package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// checkUsage is the help text of "capkit check"; its bounds are those of package release/clusterctl.
var checkUsage = fmt.Sprintf(`usage: capkit check [--strict] PATH...

Checks CRDs and clusterctl release files against the Cluster API provider contract. PATH is a regular file or a
folder, searched recursively for *.yaml and *.yml files (in any case), following symbolic links to folders; a
folder reached twice is searched once, and hidden folders (.git) are not searched unless named: the summary says
which. Every CustomResourceDefinition is checked (a cluster-scoped one that plays no contract role also for a
clusterctl move label), the items of List documents included; clusterctl metadata, components, cluster templates and
ClusterClass definitions are recognised by their names (metadata.yaml, *-components.yaml, cluster-template*.yaml,
clusterclass-<name>.yaml) or, under any other name, by their content, and checked as such. Files (and documents of
a metadata file) that are none of these, and files named *.yaml that are not regular files (named pipes, devices),
are listed as not checked, never counted as clean.

Each finding is printed on one line of printable text: "file:line: level: kind/name: rule: path: message"; a name
or path with characters that are not printable is quoted with Go escapes. The level is that of the rule's source:
error (a MUST of the contract, or what clusterctl or the API server refuses), warning (a SHOULD), note (advice,
which does not fail the check); docs/contract-and-check.md lists every rule with its level and source.
  --strict   treat a file or document that was not checked as a violation

Bounds (each file; input above one is refused with a line that names the file and the bound, exit code 2):
  %d MiB read (the size limit, checked before reading), %d MiB of values after YAML aliases are expanded,
  %d YAML nodes (also estimated before parsing, from lines and indicators), %d documents (items of Lists
  included). At most %d findings per file are listed, then "file: and N more violations"; the summary counts them
  all. The garbage collector keeps memory near %d MiB (a soft limit; GOMEMLIMIT overrides it).
exit codes: 0 clean (notes at most), 1 errors or warnings found (or, with --strict, files not checked), 2
unreadable, malformed or too large input or bad usage`, clusterctl.DefaultMaxYAMLBytes>>20, clusterctl.DefaultMaxYAMLBytes>>20, clusterctl.DefaultMaxYAMLNodes,
	clusterctl.DefaultMaxYAMLDocuments, clusterctl.DefaultMaxFindings, checkMemoryLimit>>20)

// runCheck implements "capkit check PATH...".
func runCheck(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprintln(stderr, checkUsage) }
	strict := fl.Bool("strict", false, "treat files that were not checked as violations")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() == 0 {
		fmt.Fprintln(stderr, checkUsage)
		return 2
	}
	walk, err := yamlFiles(fl.Args())
	if err != nil {
		printError(stderr, err)
		return 2
	}
	if len(walk.files) == 0 {
		printLines(stdout, walk.notChecked)
		fmt.Fprintf(stderr, "capkit check: no YAML files in %s%s\n", lint.EscapeText(fmt.Sprintf("%q", fl.Args())), skippedSummary(walk))
		return 2
	}
	files := make([]*clusterctl.YAMLFile, 0, len(walk.files))
	failed := false
	for _, name := range walk.files {
		f, err := clusterctl.ReadYAMLFile(name)
		if err != nil {
			printError(stderr, err)
			failed = true
			continue
		}
		files = append(files, f)
	}
	if failed {
		return 2
	}
	findings, err := clusterctl.CheckFiles(files...)
	if err != nil {
		printError(stderr, err)
		return 2
	}
	printLines(stdout, findings)
	skipped := append(walk.notChecked, clusterctl.FindUnclassified(files...)...)
	printLines(stdout, skipped)
	violations := findings.Failing()
	summary := fmt.Sprintf("capkit check: %s, %s", plural(len(files), "file"), plural(violations, "violation"))
	if notes := findings.Count() - violations; notes > 0 {
		summary += ", " + plural(notes, "note")
	}
	if len(skipped) > 0 {
		summary += fmt.Sprintf(", %d not checked (listed above)", len(skipped))
	}
	fmt.Fprintln(stderr, summary+skippedSummary(walk))
	if violations > 0 || (*strict && len(skipped) > 0) {
		return 1
	}
	return 0
}

// skippedSummary says which folders were not searched, for the summary line.
func skippedSummary(w walkResult) string {
	out := ""
	if len(w.hidden) > 0 {
		out += "; hidden folders not searched (name them to check them): " + pathList(w.hidden)
	}
	if len(w.repeated) > 0 {
		out += "; folders reached again through a link, not searched twice: " + pathList(w.repeated)
	}
	return out
}

// maxListedPaths bounds the paths the summary names.
const maxListedPaths = 5

// pathList returns up to maxListedPaths paths, quoted where not printable, and how many more there are.
func pathList(paths []string) string {
	names := make([]string, 0, min(len(paths), maxListedPaths)+1)
	for _, p := range paths[:min(len(paths), maxListedPaths)] {
		names = append(names, lint.QuoteName(p))
	}
	if len(paths) > maxListedPaths {
		names = append(names, fmt.Sprintf("and %d more", len(paths)-maxListedPaths))
	}
	return strings.Join(names, ", ")
}

// printLines prints the String of each item on a line of its own; clusterctl and lint make each one line of printable text.
func printLines[T fmt.Stringer](w io.Writer, items []T) {
	for _, it := range items {
		fmt.Fprintln(w, it.String())
	}
}

// printError prints an error as one line of printable text.
func printError(w io.Writer, err error) {
	fmt.Fprintln(w, "capkit check: "+lint.EscapeText(err.Error()))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
