package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/capkit/capkit/contract"
)

// errUsage is returned by run for a bad command line, which it has reported.
var errUsage = errors.New("bad usage")

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(1)
	}
}

// run keeps the version -keep in the CRDs of every *.yaml file in the folders args.
func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("crdversions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keep := fs.String("keep", "", "the API version to keep, e.g. v1beta1")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crdversions -keep VERSION FOLDER...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if *keep == "" || fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	for _, dir := range fs.Args() {
		names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return fmt.Errorf("cannot list %q: %w", dir, err)
		}
		if len(names) == 0 {
			return fmt.Errorf("cannot find CRDs in %q: run controller-gen crd first", dir)
		}
		for _, name := range names {
			if err := rewrite(name, *keep); err != nil {
				return err
			}
		}
	}
	return nil
}

// rewrite keeps version in the CRD of the file name.
func rewrite(name, version string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("cannot read CRD: %w", err)
	}
	out, err := keepVersion(data, version)
	if err != nil {
		return fmt.Errorf("cannot keep version %q in %q: %w", version, name, err)
	}
	if err := os.WriteFile(name, out, 0o644); err != nil {
		return fmt.Errorf("cannot write %q: %w", name, err)
	}
	return nil
}

// keepVersion returns the CRD file data (one document, as controller-gen writes it) with only version in
// spec.versions, as the storage version and not deprecated (a release's only version is not), and contract
// labels that name only version.
func keepVersion(data []byte, version string) ([]byte, error) {
	if bytes.Contains(bytes.TrimPrefix(data, []byte("---\n")), []byte("\n---")) {
		return nil, errors.New("want one CRD per file, as controller-gen writes them")
	}
	var crd map[string]any
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, fmt.Errorf("cannot decode: %w", err)
	}
	if crd["kind"] != "CustomResourceDefinition" {
		return nil, fmt.Errorf("kind is %q, want CustomResourceDefinition", crd["kind"])
	}
	spec, _ := crd["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	var kept []any
	var names []string
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		names = append(names, name)
		if name == version {
			m["storage"] = true
			delete(m, "deprecated")
			delete(m, "deprecationWarning")
			kept = append(kept, m)
		}
	}
	if len(kept) != 1 {
		return nil, fmt.Errorf("the CRD's versions are %q", names)
	}
	spec["versions"] = kept
	metadata, _ := crd["metadata"].(map[string]any)
	labels, _ := metadata["labels"].(map[string]any)
	for _, key := range contract.VersionLabelKeys(stringMap(labels)) {
		value, _ := labels[key].(string)
		if slices.Contains(strings.Split(value, "_"), version) {
			labels[key] = version
		} else {
			delete(labels, key)
		}
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		return nil, fmt.Errorf("cannot encode: %w", err)
	}
	return append([]byte("---\n"), out...), nil
}

// stringMap returns the string values of m.
func stringMap(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}
