package clusterctl

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract/lint"
)

// RuleComponentsAggregatedRole is the rule that Cluster API's core manager may read and patch only the infrastructure objects it
// is allowed to. It has every right on the group infrastructure.cluster.x-k8s.io; a provider whose CRDs are
// in another group ships a ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager: "true" that grants them.
const RuleComponentsAggregatedRole = "components.aggregated-role"

// aggregateToManagerLabel is the label that aggregates a ClusterRole into Cluster API's manager role.
const aggregateToManagerLabel = "cluster.x-k8s.io/aggregate-to-manager"

// defaultInfraGroup is the group Cluster API's manager has every right on.
const defaultInfraGroup = "infrastructure.cluster.x-k8s.io"

// checkAggregatedRole checks that the contract CRDs of a components file outside the default group are granted
// to Cluster API's manager by an aggregated ClusterRole of the file.
func (r release) checkAggregatedRole(f *YAMLFile) Findings {
	var out Findings
	granted := aggregatedGrants(f)
	for _, e := range r.crds {
		if e.doc.File != f.Name || !e.known {
			continue
		}
		group, plural := e.crd.Spec.Group, e.crd.Spec.Names.Plural
		if group == defaultInfraGroup || granted[group+"/"+plural] || granted[group+"/*"] {
			continue
		}
		out = append(out, finding(e.doc, lint.Violation{Rule: RuleComponentsAggregatedRole, Object: e.doc.ObjectRef(), Path: "spec.group",
			Message: fmt.Sprintf("group %q is not %q and no ClusterRole labelled %s: \"true\" grants %q: Cluster API's manager cannot read or patch the provider's objects",
				group, defaultInfraGroup, aggregateToManagerLabel, plural)}))
	}
	return out
}

// aggregatedGrants returns "group/resource" for every resource an aggregated ClusterRole of f grants (any verb).
func aggregatedGrants(f *YAMLFile) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Documents {
		u := d.Object
		if u.GetKind() != "ClusterRole" || u.GetLabels()[aggregateToManagerLabel] != "true" {
			continue
		}
		rules, _, _ := unstructured.NestedSlice(u.Object, "rules")
		for _, rule := range rules {
			m, ok := rule.(map[string]any)
			if !ok {
				continue
			}
			groups, _, _ := unstructured.NestedStringSlice(m, "apiGroups")
			resources, _, _ := unstructured.NestedStringSlice(m, "resources")
			for _, g := range groups {
				for _, res := range resources {
					out[g+"/"+res] = true
				}
			}
		}
	}
	return out
}
