package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
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
clusterclass-<name>.yaml) or, under any other name, by their content, and checked as such.

Files are read as clusterctl reads them: clusterctl variables (${VAR}, ${VAR:=default}, ...) are replaced with
placeholders before a file is parsed, so that a template that is YAML only once substituted is read (the variable
checks and the values checked still see the original text), and a metadata.yaml without kind or apiVersion gets
clusterctl's. Kustomizations are not built: a kustomization file is listed as not checked with the command that
builds it, and a folder without one whose parent has one (config/crd/bases and config/crd) is named in the summary.

A file that cannot be read (malformed YAML, input above a bound, a Helm values file, a clusterctl configuration
file), a file or document that is none of the above, and a file named *.yaml that is not a regular file (a named
pipe, a device) is listed as "FILE: not checked: REASON", never counted as clean, and the other files are still
checked; the summary counts it among the files.

Each finding is printed on one line of printable text: "file:line: level: kind/name: rule: path: message"; a name
or path with characters that are not printable is quoted with Go escapes. The level is that of the rule's source:
error (a MUST of the contract, or what clusterctl or the API server refuses), warning (a SHOULD), note (advice,
which does not fail the check); docs/contract-and-check.md lists every rule with its level and source.
  --strict   treat a file or document that was not checked as a violation

Bounds (each file; a file above one is listed as not checked with a reason that names the bound):
  %d MiB read (the size limit, checked before reading), %d MiB of values after YAML aliases are expanded,
  %d YAML nodes (also estimated before parsing, from lines and indicators), %d documents (items of Lists
  included). At most %d findings per file are listed, then "file: and N more violations"; the summary counts them
  all. The garbage collector keeps memory near %d MiB (a soft limit; GOMEMLIMIT overrides it).
exit codes: 0 every file checked and clean (notes at most; files that are not release files, and kustomizations,
are listed as not checked); 1 errors or warnings found (with --strict, also anything not checked); 2 no errors or
warnings, but files could not be read (malformed, too large, not decodable: listed as not checked), or bad usage,
or an argument that cannot be read, or no YAML files`, clusterctl.DefaultMaxYAMLBytes>>20, clusterctl.DefaultMaxYAMLBytes>>20, clusterctl.DefaultMaxYAMLNodes,
	clusterctl.DefaultMaxYAMLDocuments, clusterctl.DefaultMaxFindings, checkMemoryLimit>>20)

// Exit codes of "capkit check".
const (
	// checkClean: every file was checked and nothing was found.
	checkClean = 0
	// checkViolations: violations were found (or, with --strict, files were not checked).
	checkViolations = 1
	// checkFailed: bad usage, or an argument that cannot be read (missing, not a file or folder, an I/O error).
	checkFailed = 2
	// checkUnreadable: no violations, but files could not be read (listed as not checked on stdout, nothing on
	// stderr but the summary); the same code as checkFailed: something could not be checked.
	checkUnreadable = 2
)

// runCheck implements "capkit check PATH...".
func runCheck(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprintln(stderr, checkUsage) }
	strict := fl.Bool("strict", false, "treat files that were not checked as violations")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return checkClean
		}
		return checkFailed
	}
	if fl.NArg() == 0 {
		fmt.Fprintln(stderr, checkUsage)
		return checkFailed
	}
	walk, err := yamlFiles(fl.Args())
	if err != nil {
		printError(stderr, err)
		return checkFailed
	}
	if len(walk.files) == 0 && len(walk.notChecked) == 0 {
		fmt.Fprintf(stderr, "capkit check: no YAML files in %s%s\n", lint.EscapeText(fmt.Sprintf("%q", fl.Args())), skippedSummary(walk))
		return checkFailed
	}
	read, err := readFiles(walk)
	if err != nil {
		printError(stderr, err)
		return checkFailed
	}
	findings, err := checkReadable(&read)
	if err != nil {
		printError(stderr, err)
		return checkFailed
	}
	printLines(stdout, findings)
	skipped := slices.Concat(walk.notChecked, read.notChecked, clusterctl.FindUnclassified(read.files...))
	slices.SortStableFunc(skipped, func(a, b clusterctl.Unclassified) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	printLines(stdout, skipped)
	violations := findings.Failing()
	files := len(read.files) + len(read.notChecked) + len(walk.notChecked)
	summary := fmt.Sprintf("capkit check: %s, %s", plural(files, "file"), plural(violations, "violation"))
	if notes := findings.Count() - violations; notes > 0 {
		summary += ", " + plural(notes, "note")
	}
	if len(skipped) > 0 {
		summary += fmt.Sprintf(", %d not checked (listed above)", len(skipped))
	}
	fmt.Fprintln(stderr, summary+skippedSummary(walk))
	switch {
	case violations > 0 || (*strict && len(skipped) > 0):
		return checkViolations
	case unreadable(walk, read) > 0:
		return checkUnreadable
	}
	return checkClean
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
	for _, k := range w.kustomizedBy {
		out += fmt.Sprintf("; %s has no kustomization but %s has one, which may add labels (such as the contract labels of CRDs) and patches: "+
			"to check what a release ships, check what it builds (kubectl kustomize %s)", lint.QuoteName(k[0]), lint.QuoteName(k[1]), lint.QuoteName(k[1]))
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

// unreadable counts the files that could not be read: malformed, too large, not decodable, not regular files.
// Files that are not release files (RBAC, a kustomization, a Helm values or clusterctl configuration file) are
// listed as not checked too, but are no failure to read.
func unreadable(w walkResult, r readResult) int {
	n := 0
	for _, u := range r.notChecked {
		if !strings.Contains(u.Reason, ", not Kubernetes objects (") { // a Helm values or clusterctl configuration file
			n++
		}
	}
	for _, u := range w.notChecked {
		if strings.HasPrefix(u.Reason, "not checked: not a regular file") {
			n++
		}
	}
	return n
}
