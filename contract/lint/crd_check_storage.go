package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/capkit/capkit/contract"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// contractVersions are the served API versions one contract label names, oldest first.
type contractVersions struct {
	contract contract.Version
	versions []string
}

// checkStorageVersion checks, for a CRD whose versions share one stored form (conversion strategy None), that the
// storage version's schema has every contract field that a version named by a contract label has. The API server
// prunes each object it stores with the storage version's schema, so a field written through the labelled version
// is dropped before it reaches etcd (a v1beta2 status.initialization written through v1beta2 and stored as
// v1beta1). A storage version that a label names for the same contract is checked by the field rules instead.
//
// With a conversion webhook the storage version may hold a field at another path (status.ready for
// status.initialization.provisioned), so this check does not apply: the webhook's round-trip tests prove it.
func (c *crdChecker) checkStorageVersion(role Kind, labelled []contractVersions) {
	i := slices.IndexFunc(c.crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Storage })
	if i < 0 || len(labelled) == 0 {
		return
	}
	storage := c.crd.Spec.Versions[i].Name
	root := c.schemaOf(storage)
	if root == nil {
		return
	}
	var lost []contract.Path
	var writers []string
	for _, cv := range labelled {
		if slices.Contains(cv.versions, storage) {
			continue
		}
		for _, r := range Rules(role, cv.contract) {
			if slices.ContainsFunc(lost, func(p contract.Path) bool { return hasPrefix(r.Path, p) }) {
				continue // the parent is lost already
			}
			if _, res, _ := lookupSchema(root, r.Path); res != schemaMissing {
				continue
			}
			for _, name := range cv.versions {
				if _, res, _ := lookupSchema(c.schemaOf(name), r.Path); res == schemaFound {
					lost = append(lost, r.Path)
					writers = append(writers, fmt.Sprintf("%s (version %q, contract %s)", r.Path, name, cv.contract))
					break
				}
			}
		}
	}
	if len(lost) == 0 {
		return
	}
	paths := make([]string, len(lost))
	for i, p := range lost {
		paths[i] = p.String()
	}
	fix := fmt.Sprintf("add %s to version %q's schema", strings.Join(paths, ", "), storage)
	if to := c.holdingAll(role, labelled, storage); to != "" {
		fix = fmt.Sprintf("set the storage version to %q (storage: true, the +kubebuilder:storageversion marker on its Go type) or %s", to, fix)
	}
	c.add(RuleCRDStorageVersionFields, "spec.versions["+storage+"].schema",
		"storage version %q has no %s, which the labelled versions write: %s; with conversion strategy None the API server prunes every object it stores with the storage version's schema, so these fields are lost: %s",
		storage, strings.Join(paths, ", "), strings.Join(writers, ", "), fix)
}

// holdingAll returns the newest labelled API version other than storage whose schema has every contract field that
// any labelled version has, so that making it the storage version loses nothing; or "".
func (c *crdChecker) holdingAll(role Kind, labelled []contractVersions, storage string) string {
	var written []contract.Path
	for _, cv := range labelled {
		for _, r := range Rules(role, cv.contract) {
			for _, name := range cv.versions {
				if _, res, _ := lookupSchema(c.schemaOf(name), r.Path); res == schemaFound {
					written = append(written, r.Path)
					break
				}
			}
		}
	}
	for _, cv := range labelled { // newest contract first
		for _, name := range slices.Backward(cv.versions) {
			root := c.schemaOf(name)
			if name != storage && !slices.ContainsFunc(written, func(p contract.Path) bool {
				_, res, _ := lookupSchema(root, p)
				return res == schemaMissing
			}) {
				return name
			}
		}
	}
	return ""
}
