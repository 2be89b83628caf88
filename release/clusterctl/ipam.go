package clusterctl

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract/lint"
)

// RuleComponentsIPAMRBAC is the rule that a ClusterRole of a components file that names Cluster API's
// IPAddressClaims grants what the IPAM contract has an infrastructure provider do with them: create a claim, read it
// until status.addressRef is set, and fetch the IPAddress it names; that is create and get on ipaddressclaims and
// get on ipaddresses (group ipam.cluster.x-k8s.io). Nothing more is required: the contract only suggests watching
// claims ("ideally by watching"), and deleting them is left to the garbage collector through the owner reference to
// the infrastructure Machine ("handled by the API server if the owner relation is set up correctly"), so a
// provider needs no delete. A provider that reads through a cached client also needs list and watch, which its
// own tests show.
const RuleComponentsIPAMRBAC = "components.ipam-rbac"

// ipamGroup is the API group of IPAddressClaim and IPAddress.
const ipamGroup = "ipam.cluster.x-k8s.io"

// ipamNeeds are the verbs a provider that claims addresses needs, by resource, in the order they are reported.
var ipamNeeds = []struct {
	resource string
	verbs    []string
}{
	{"ipaddressclaims", []string{"create", "get"}},
	{"ipaddresses", []string{"get"}},
}

// checkIPAMRBAC checks the ClusterRoles of a components file that grant anything on ipaddressclaims
// (RuleComponentsIPAMRBAC).
func checkIPAMRBAC(f *YAMLFile) Findings {
	var out Findings
	for _, d := range f.Documents {
		if d.Object.GetKind() != "ClusterRole" {
			continue
		}
		granted, named := ipamGrants(d.Object)
		if !named {
			continue
		}
		var missing []string
		for _, need := range ipamNeeds {
			var verbs []string
			for _, v := range need.verbs {
				if !granted[need.resource][v] && !granted[need.resource]["*"] {
					verbs = append(verbs, v)
				}
			}
			if len(verbs) > 0 {
				missing = append(missing, strings.Join(verbs, ", ")+" on "+need.resource)
			}
		}
		if len(missing) == 0 {
			continue
		}
		out = append(out, finding(d, lint.Violation{Rule: RuleComponentsIPAMRBAC, Object: d.ObjectRef(), Path: "rules",
			Message: fmt.Sprintf("the ClusterRole grants ipaddressclaims (group %s) but not %s: the IPAM contract has an infrastructure provider create an IPAddressClaim, read it until status.addressRef is set and fetch that IPAddress",
				ipamGroup, strings.Join(missing, "; "))}))
	}
	return out
}

// ipamGrants returns the verbs a ClusterRole grants on each resource of the IPAM group (a verb may be "*"), and
// whether a rule names ipaddressclaims. Only a rule that names it makes the role one that claims addresses (a
// read-only role on every resource is not); a rule restricted to resourceNames grants no verb.
func ipamGrants(role *unstructured.Unstructured) (verbs map[string]map[string]bool, named bool) {
	out := map[string]map[string]bool{}
	for _, rule := range policyRules(role) {
		if !slices.Contains(rule.groups, ipamGroup) && !slices.Contains(rule.groups, "*") {
			continue
		}
		named = named || slices.Contains(rule.resources, "ipaddressclaims")
		if len(rule.names) > 0 {
			continue
		}
		for _, res := range rule.resources {
			targets := []string{res}
			if res == "*" {
				targets = []string{"ipaddressclaims", "ipaddresses"}
			}
			for _, t := range targets {
				if out[t] == nil {
					out[t] = map[string]bool{}
				}
				for _, v := range rule.verbs {
					out[t][v] = true
				}
			}
		}
	}
	return out, named
}
