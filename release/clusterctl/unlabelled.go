package clusterctl

import (
	"fmt"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
)

// unlabelledCRDs reports whether the CRDs of the files outside components files are controller-gen's output, as in
// config/crd/bases: none of them carries a cluster.x-k8s.io/<contract> label, and at least one is a contract type.
// Providers add the contract labels (and the clusterctl move labels) in config/crd/kustomization.yaml, so such CRDs
// cannot be judged by their labels: CheckFiles then reports no RuleCRDContractLabel or RuleCRDMoveLabel violation on
// them, and FindUnclassified lists them once as not checked. It returns the folder that holds them all and how many
// there are.
func unlabelledCRDs(files []*YAMLFile, kinds []FileKind) (dir string, n int, ok bool) {
	var dirs []string
	roles := 0
	for i, f := range files {
		if kinds[i] == FileComponents {
			continue
		}
		for _, d := range f.Documents {
			u := d.Object
			if u.GetKind() != "CustomResourceDefinition" {
				continue
			}
			if len(contract.VersionLabelKeys(u.GetLabels())) > 0 {
				return "", 0, false
			}
			group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
			if _, known := lint.RoleOf(group, kind); known {
				roles++
			}
			dirs = append(dirs, filepath.Dir(f.Name))
			n++
		}
	}
	if roles == 0 {
		return "", 0, false
	}
	return commonDir(dirs), n, true
}

// commonDir returns the deepest folder that holds every folder of dirs.
func commonDir(dirs []string) string {
	common := filepath.Clean(dirs[0])
	for _, d := range dirs[1:] {
		d = filepath.Clean(d)
		for common != d && !strings.HasPrefix(d, common+string(filepath.Separator)) && common != "." && common != string(filepath.Separator) {
			common = filepath.Dir(common)
		}
	}
	return common
}

// unlabelledNote is the entry of FindUnclassified for CRDs whose labels were not checked (see unlabelledCRDs).
func unlabelledNote(dir string, n int) Unclassified {
	crds := "CRDs"
	if n == 1 {
		crds = "CRD"
	}
	return Unclassified{File: dir, Reason: fmt.Sprintf(
		"note: labels not checked: none of the %d %s here carries a %s<contract> label, as controller-gen writes them (providers add the contract and clusterctl move labels in config/crd/kustomization.yaml); "+
			"give capkit check that kustomization folder (config/crd, or config/default) or the release's *-components.yaml to check them",
		n, crds, contract.VersionLabelPrefix)}
}
