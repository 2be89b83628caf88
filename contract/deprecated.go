package contract

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// Deprecated forms of names renamed in v0.2.0, kept for v0.2.x. "go fix ./..." (Go 1.26) rewrites their callers
// to the new names.

// ContractLabelPrefix starts the CRD labels that declare contract versions.
//
// Deprecated: use VersionLabelPrefix.
//
//go:fix inline
const ContractLabelPrefix = VersionLabelPrefix

// ContractLabel returns the CRD label key that declares contract v.
//
// Deprecated: use VersionLabel.
//
//go:fix inline
func ContractLabel(v Version) string { return VersionLabel(v) }

// ContractLabelKeys returns the keys of labels that declare a contract, sorted newest contract first.
//
// Deprecated: use VersionLabelKeys.
//
//go:fix inline
func ContractLabelKeys(labels map[string]string) []string { return VersionLabelKeys(labels) }

// ContractVersionFromLabels returns the newest contract and API version that CRD labels declare.
//
// Deprecated: use VersionFromLabels.
//
//go:fix inline
func ContractVersionFromLabels(labels map[string]string, served []string) (Version, string, error) {
	return VersionFromLabels(labels, served)
}

// ContractVersionOf returns the newest contract version a CRD declares and the API version that implements it.
//
// Deprecated: use VersionOf.
//
//go:fix inline
func ContractVersionOf(crd *apiextensionsv1.CustomResourceDefinition) (Version, string, error) {
	return VersionOf(crd)
}
