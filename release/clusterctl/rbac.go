package clusterctl

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract/lint"
)

// RuleComponentsAggregatedRole is the rule that Cluster API's core manager may read and write the provider's
// contract objects. Its manager role (core/config/rbac/role.yaml) grants every verb on every resource of the groups
// infrastructure, bootstrap, controlplane and addons.cluster.x-k8s.io; the contract pages (InfraCluster,
// InfraMachine, BootstrapConfig, ControlPlane: "If your provider uses a different API group, you MUST grant full
// read/write RBAC permissions") ask a provider whose CRDs are in another group for a ClusterRole labelled
// cluster.x-k8s.io/aggregate-to-manager: "true" that grants them.
const RuleComponentsAggregatedRole = "components.aggregated-role"

// aggregateToManagerLabel is the label that aggregates a ClusterRole into Cluster API's manager role.
const aggregateToManagerLabel = "cluster.x-k8s.io/aggregate-to-manager"

// managerGroups are the groups on whose resources Cluster API's manager role grants every verb (Cluster API
// v1.14 core/config/rbac/role.yaml).
var managerGroups = []string{"addons.cluster.x-k8s.io", "bootstrap.cluster.x-k8s.io", "controlplane.cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"}

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
		if slices.Contains(managerGroups, group) || granted[group+"/"+plural] || granted[group+"/*"] {
			continue
		}
		out = append(out, finding(e.doc, lint.Violation{Rule: RuleComponentsAggregatedRole, Object: e.doc.ObjectRef(), Path: "spec.group",
			Message: fmt.Sprintf("group %q is none of those Cluster API's manager role grants (%s) and no ClusterRole labelled %s: \"true\" grants %q: the contract asks a provider of another group to grant them, else Cluster API's manager cannot read or patch the provider's objects",
				group, strings.Join(managerGroups, ", "), aggregateToManagerLabel, plural)}))
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
