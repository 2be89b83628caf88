package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/capkit/capkit/contract/lint"
)

const checkUsage = `usage: capkit check [--strict] PATH...

Checks CRDs and clusterctl release files against the Cluster API provider contract. PATH is a file or a
folder, searched recursively for *.yaml and *.yml files. Every CustomResourceDefinition is checked (a
cluster-scoped one that plays no contract role also for a clusterctl move label); clusterctl metadata,
components, cluster templates and ClusterClass definitions are recognised by their names (metadata.yaml,
*-components.yaml, cluster-template*.yaml, clusterclass-<name>.yaml) or, under any other name, by their
content, and checked as such. Files (and documents of a metadata file) that are none of these are listed as
not checked, never counted as clean.

Each violation is printed on one line: "file:line: kind/name: rule: path: message".
  --strict   treat a file or document that was not checked as a violation
exit codes: 0 clean, 1 violations found (or, with --strict, files not checked), 2 unreadable or malformed
input or bad usage`

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
	names, err := yamlFiles(fl.Args())
	if err != nil {
		fmt.Fprintf(stderr, "capkit check: %v\n", err)
		return 2
	}
	files := make([]*lint.YAMLFile, 0, len(names))
	failed := false
	for _, name := range names {
		f, err := lint.ReadYAMLFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "capkit check: %v\n", err)
			failed = true
			continue
		}
		files = append(files, f)
	}
	if failed {
		return 2
	}
	findings, err := lint.CheckFiles(files...)
	if err != nil {
		fmt.Fprintf(stderr, "capkit check: %v\n", err)
		return 2
	}
	for _, f := range findings {
		fmt.Fprintln(stdout, f.String())
	}
	skipped := lint.FindUnclassified(files...)
	for _, u := range skipped {
		fmt.Fprintln(stdout, u.String())
	}
	summary := fmt.Sprintf("capkit check: %s, %s", plural(len(files), "file"), plural(len(findings), "violation"))
	if len(skipped) > 0 {
		summary += fmt.Sprintf(", %d not checked (listed above)", len(skipped))
	}
	fmt.Fprintln(stderr, summary)
	if len(findings) > 0 || (*strict && len(skipped) > 0) {
		return 1
	}
	return 0
}

// yamlFiles expands the arguments into a sorted list of files: files as given, folders searched recursively for
// *.yaml and *.yml (hidden folders skipped).
func yamlFiles(args []string) ([]string, error) {
	var out []string
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, fmt.Errorf("cannot read %q: %w", arg, err)
		}
		if !fi.IsDir() {
			out = append(out, arg)
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != arg && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot read folder %q: %w", arg, err)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("no YAML files in %q", args)
	}
	return out, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
