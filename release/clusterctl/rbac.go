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
		for _, rule := range policyRules(u) {
			for _, g := range rule.groups {
				for _, res := range rule.resources {
					out[g+"/"+res] = true
				}
			}
		}
	}
	return out
}

// policyRule is one rule of a Role or ClusterRole, as RBAC reads it.
type policyRule struct {
	groups, resources, verbs, names []string
}

// policyRules returns the rules of a Role or ClusterRole; a rule that is not a map is left out, a field that is not
// a list of strings is empty.
func policyRules(role *unstructured.Unstructured) []policyRule {
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	out := make([]policyRule, 0, len(rules))
	for _, rule := range rules {
		m, ok := rule.(map[string]any)
		if !ok {
			continue
		}
		var r policyRule
		r.groups, _, _ = unstructured.NestedStringSlice(m, "apiGroups")
		r.resources, _, _ = unstructured.NestedStringSlice(m, "resources")
		r.verbs, _, _ = unstructured.NestedStringSlice(m, "verbs")
		r.names, _, _ = unstructured.NestedStringSlice(m, "resourceNames")
		out = append(out, r)
	}
	return out
}
