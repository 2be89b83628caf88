package clusterctl

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/internal/jsonvalue"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Rule identifiers of CheckMetadata and of the metadata checks of CheckFiles.
const (
	// RuleMetadataAPIVersion: apiVersion must be clusterctl.cluster.x-k8s.io/v1alpha3 and kind Metadata.
	RuleMetadataAPIVersion = "metadata.api-version"
	// RuleMetadataReleaseSeries: releaseSeries must be a non-empty list of {major, minor, contract}.
	RuleMetadataReleaseSeries = "metadata.release-series"
	// RuleMetadataContract: each release series names a Cluster API contract; the newest one a supported contract.
	RuleMetadataContract = "metadata.contract"
	// RuleMetadataCRDContract: the provider's CRDs that carry contract labels declare the contract of the newest
	// release series, as the clusterctl contract asks. clusterctl itself never compares the two: it reads
	// metadata.yaml at init and upgrade, and Cluster API reads the contract from the installed CRDs' labels only.
	RuleMetadataCRDContract = "metadata.crd-contract"
	// RuleMetadataDocuments: metadata.yaml holds exactly one Metadata document.
	RuleMetadataDocuments = "metadata.documents"
)

// MetadataAPIVersion is the apiVersion of clusterctl's metadata.yaml.
const MetadataAPIVersion = "clusterctl.cluster.x-k8s.io/v1alpha3"

// knownContracts are the Cluster API contract versions that have existed, oldest first.
var knownContracts = []string{"v1alpha1", "v1alpha2", "v1alpha3", "v1alpha4", "v1beta1", "v1beta2"}

// contractName matches what a contract version looks like, to tell a typo from a future contract.
var contractName = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

// ReleaseSeries is one entry of metadata.yaml: the provider's release series major.minor and the Cluster API
// contract it implements.
type ReleaseSeries struct {
	// Major is the major version of the release series.
	Major int64
	// Minor is the minor version of the release series.
	Minor int64
	// Contract is the Cluster API contract version, e.g. "v1beta2".
	Contract string
}

// String returns "v<major>.<minor>".
func (s ReleaseSeries) String() string { return fmt.Sprintf("v%d.%d", s.Major, s.Minor) }

// CheckMetadata checks a clusterctl metadata.yaml object: apiVersion clusterctl.cluster.x-k8s.io/v1alpha3, kind
// Metadata, and a non-empty releaseSeries whose entries have a non-negative integer major and minor, a known
// contract, and no duplicate major.minor. The newest series (highest major, then minor) must name a contract
// that current Cluster API supports (v1beta1 or v1beta2). It returns the newest series, if any entry is valid.
func CheckMetadata(u *unstructured.Unstructured) (lint.Violations, *ReleaseSeries) {
	if u == nil {
		return lint.Violations{{Rule: RuleMetadataAPIVersion, Object: "Metadata", Message: "cannot check a nil object"}}, nil
	}
	obj := objectRef(u)
	var out lint.Violations
	add := func(rule, path, format string, args ...any) {
		out = append(out, lint.Violation{Rule: rule, Object: obj, Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if u.GetAPIVersion() != MetadataAPIVersion || u.GetKind() != "Metadata" {
		add(RuleMetadataAPIVersion, "apiVersion", "apiVersion %q and kind %q, want %q and %q", u.GetAPIVersion(), u.GetKind(), MetadataAPIVersion, "Metadata")
	}
	raw, found := u.Object["releaseSeries"]
	items, isList := raw.([]any)
	switch {
	case !found || raw == nil:
		add(RuleMetadataReleaseSeries, "releaseSeries", "releaseSeries is missing: list each release series with major, minor and contract")
		return out, nil
	case !isList:
		add(RuleMetadataReleaseSeries, "releaseSeries", "releaseSeries is a %s, want a list of {major, minor, contract}", jsonvalue.KindOf(raw))
		return out, nil
	case len(items) == 0:
		add(RuleMetadataReleaseSeries, "releaseSeries", "releaseSeries is empty: list each release series with major, minor and contract")
		return out, nil
	}
	var valid []ReleaseSeries
	seen := map[string]bool{}
	for i, item := range items {
		path := fmt.Sprintf("releaseSeries[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			add(RuleMetadataReleaseSeries, path, "release series is a %s, want a map with major, minor and contract", jsonvalue.KindOf(item))
			continue
		}
		s, problems := parseSeries(m)
		for _, p := range problems {
			add(p.rule, path+"."+p.field, "%s", p.msg)
		}
		if len(problems) > 0 {
			continue
		}
		if seen[s.String()] {
			add(RuleMetadataReleaseSeries, path, "release series %s is listed twice", s)
			continue
		}
		seen[s.String()] = true
		valid = append(valid, s)
	}
	if len(valid) == 0 {
		return out, nil
	}
	newest := slices.MaxFunc(valid, func(a, b ReleaseSeries) int {
		return cmp.Or(cmp.Compare(a.Major, b.Major), cmp.Compare(a.Minor, b.Minor))
	})
	if !contract.Version(newest.Contract).Valid() {
		add(RuleMetadataContract, "releaseSeries", "the newest release series %s implements contract %q, which current Cluster API does not support: want %q or %q",
			newest, newest.Contract, contract.V1Beta2, contract.V1Beta1)
	}
	return out, &newest
}

type seriesProblem struct{ rule, field, msg string }

// parseSeries reads one release series entry.
func parseSeries(m map[string]any) (ReleaseSeries, []seriesProblem) {
	var s ReleaseSeries
	var problems []seriesProblem
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"major", &s.Major}, {"minor", &s.Minor}} {
		v, found := m[f.name]
		n, isInt := v.(int64)
		switch {
		case !found:
			problems = append(problems, seriesProblem{RuleMetadataReleaseSeries, f.name, f.name + " is missing"})
		case !isInt || n < 0:
			problems = append(problems, seriesProblem{RuleMetadataReleaseSeries, f.name, fmt.Sprintf("%s is %s, want a non-negative integer", f.name, describeValue(v))})
		default:
			*f.dst = n
		}
	}
	c, isString := m["contract"].(string)
	switch {
	case !isString || c == "":
		problems = append(problems, seriesProblem{RuleMetadataContract, "contract", fmt.Sprintf("contract is %s, want a Cluster API contract version such as %q", describeValue(m["contract"]), contract.V1Beta2)})
	case !contractName.MatchString(c):
		problems = append(problems, seriesProblem{RuleMetadataContract, "contract", fmt.Sprintf("contract %q is not a contract version: want one of %q", c, knownContracts)})
	case !slices.Contains(knownContracts, c):
		problems = append(problems, seriesProblem{RuleMetadataContract, "contract", fmt.Sprintf("contract %q does not exist: want one of %q", c, knownContracts)})
	}
	s.Contract = c
	return s, problems
}

// describeValue names a decoded YAML value for a message: its type, and the value for scalars.
func describeValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "missing"
	case string:
		return fmt.Sprintf("the string %q", truncate(t, 40))
	case map[string]any, []any:
		return "a " + jsonvalue.KindOf(v)
	}
	return fmt.Sprintf("%v (%s)", v, jsonvalue.KindOf(v))
}

// checkMetadataFile checks metadata.yaml, and the CRDs in its folder against its newest contract.
func (r release) checkMetadataFile(f *YAMLFile) Findings {
	var out Findings
	if len(f.Documents) != 1 {
		out = append(out, Finding{File: f.Name, Violation: lint.Violation{Rule: RuleMetadataDocuments, Object: "Metadata",
			Message: fmt.Sprintf("metadata.yaml has %d documents, want exactly one Metadata object", len(f.Documents))}})
		if len(f.Documents) == 0 {
			return out
		}
	}
	d := f.Documents[0]
	vs, newest := CheckMetadata(d.Object)
	for _, v := range vs {
		out = append(out, finding(d, v))
	}
	if newest == nil || !contract.Version(newest.Contract).Valid() {
		return out
	}
	label := contract.VersionLabel(contract.Version(newest.Contract))
	for _, e := range r.crdsUnder(filepath.Dir(f.Name)) {
		if !e.known {
			continue
		}
		if _, ok := e.crd.Labels[label]; ok {
			continue
		}
		have := contract.VersionLabelKeys(e.crd.Labels)
		if len(have) == 0 {
			continue // no contract label at all: controller-gen's output, labelled later (see FindUnclassified)
		}
		out = append(out, finding(e.doc, lint.Violation{Rule: RuleMetadataCRDContract, Object: e.doc.ObjectRef(), Path: "metadata.labels",
			Message: fmt.Sprintf("%s maps the newest release series %s to contract %s, but the CRD has no %q label (contract labels: %s): %s",
				f.Name, newest, newest.Contract, label, listOrNone(have), metadataFix(label, newest, have, e.crd.Spec.Versions))}))
	}
	return out
}

// metadataFix says how to make metadata.yaml and a CRD agree: label the CRD for the release series' contract, or,
// when the CRD declares another contract, map the release series to that one.
func metadataFix(label string, newest *ReleaseSeries, have []string, versions []apiextensionsv1.CustomResourceDefinitionVersion) string {
	served := ""
	for _, v := range versions {
		if v.Served {
			served = v.Name // the last served version, as controller-gen lists them
		}
	}
	fix := fmt.Sprintf("label the CRD %q once its schema has the fields of contract %s (the +kubebuilder:metadata:labels=%q marker or config/crd's kustomization labels)",
		label+": "+served, newest.Contract, label+"="+served)
	if len(have) > 0 {
		if declared := contract.Version(strings.TrimPrefix(have[0], contract.VersionLabelPrefix)); declared.Valid() {
			fix += fmt.Sprintf(", or set contract: %s for release series %s in metadata.yaml", declared, newest)
		}
	}
	return fix
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
