package clusterctl_test

import (
	"fmt"

	"github.com/capkit/capkit/release/clusterctl"
)

// checkRelease is the package doc's sketch: read a file, check it, print the findings as capkit check does.
func checkRelease(path string) error {
	// snippet:start check
	f, err := clusterctl.ReadYAMLFile(path)
	if err != nil {
		return err // names the file; ErrMalformed and ErrTooLarge errors name the line and the bound too
	}
	findings, err := clusterctl.CheckFiles(f)
	if err != nil {
		return err
	}
	for _, fd := range findings {
		fmt.Println(fd) // "file:line: level: kind/name: rule: path: message", as capkit check prints it
	}
	// snippet:end check
	return nil
}

// ReadYAMLFile reads a file with the line of each document, so that findings point into it.
func ExampleReadYAMLFile() {
	if err := checkRelease("testdata/bad/crds/cluster-scoped.yaml"); err != nil {
		fmt.Println(err)
	}
	if err := checkRelease("testdata/none.yaml"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// testdata/bad/crds/cluster-scoped.yaml:3: error: CustomResourceDefinition/scopedclusters.infrastructure.bad.example.io: crd.scope: spec.scope: scope is "Cluster", want "Namespaced": Cluster API objects and their infrastructure live in a namespace
	// testdata/none.yaml: cannot open file: open testdata/none.yaml: no such file or directory
}
