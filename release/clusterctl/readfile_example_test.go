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
		fmt.Println(fd) // "file:line: kind/name: rule: path: message", as capkit check prints it
	}
	// snippet:end check
	return nil
}

// ReadYAMLFile reads a file with the line of each document, so that findings point into it.
func ExampleReadYAMLFile() {
	if err := checkRelease("testdata/bad/crds/no-contract-label.yaml"); err != nil {
		fmt.Println(err)
	}
	if err := checkRelease("testdata/none.yaml"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// testdata/bad/crds/no-contract-label.yaml:3: CustomResourceDefinition/unlabelledclusters.infrastructure.bad.example.io: crd.contract-label: metadata.labels: no cluster.x-k8s.io/<contract> label: add "cluster.x-k8s.io/v1beta2": <API version> (e.g. "v1alpha1") so that Cluster API knows which API version implements which contract
	// testdata/none.yaml: cannot open file: open testdata/none.yaml: no such file or directory
}
