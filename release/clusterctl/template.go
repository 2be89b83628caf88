package clusterctl

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Rule identifiers of the cluster-template checks of CheckFiles.
const (
	// RuleTemplateCluster: a cluster template holds a Cluster. clusterctl generate cluster renders a template without
	// one; the contract describes a template as all the objects of a workload cluster, and a ClusterClass as a
	// clusterclass-<name>.yaml file of its own. A note.
	RuleTemplateCluster = "template.cluster"
	// RuleTemplateInfrastructureRef: the Cluster's infrastructureRef names an InfraCluster kind of the provider,
	// in the reference form of the Cluster's API version, and an object of the template.
	RuleTemplateInfrastructureRef = "template.infrastructure-ref"
	// RuleTemplateNamespace: objects have no namespace or ${NAMESPACE}. clusterctl generate cluster sets the
	// namespace of every object to the target namespace, so a fixed namespace matters only to those who apply the
	// file as it is. A note.
	RuleTemplateNamespace = "template.namespace"
)

// checkTemplate checks a cluster-template*.yaml file.
func (r release) checkTemplate(f *YAMLFile) Findings {
	var out Findings
	add := func(d Document, rule, path, format string, args ...any) {
		out = append(out, finding(d, lint.Violation{Rule: rule, Object: d.ObjectRef(), Path: path, Message: fmt.Sprintf(format, args...)}))
	}
	crds := r.nearestCRDs(filepath.Dir(f.Name))
	clusters := 0
	for _, d := range f.Documents {
		u := d.Object
		if ns := u.GetNamespace(); ns != "" && !isNamespaceVariable(ns) {
			add(d, RuleTemplateNamespace, "metadata.namespace", "namespace is %q: clusterctl generate cluster replaces it with the target namespace, but the file applied as it is creates the object there; leave it out or write ${NAMESPACE}", ns)
		}
		gvk := u.GroupVersionKind()
		if gvk.Group != contract.GroupName || gvk.Kind != "Cluster" {
			continue
		}
		clusters++
		if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "topology"); found {
			continue // a ClusterClass cluster gets its infrastructure from the class
		}
		for _, p := range r.checkInfrastructureRef(f, u, gvk.Version, crds) {
			add(d, RuleTemplateInfrastructureRef, "spec.infrastructureRef", "%s", p)
		}
	}
	if clusters == 0 {
		out = append(out, Finding{File: f.Name, Violation: lint.Violation{Rule: RuleTemplateCluster,
			Message: fmt.Sprintf("no %s Cluster in the cluster template: clusterctl generate cluster renders it anyway, but the contract describes a cluster template as all the objects of a workload cluster; publish a ClusterClass as clusterclass-<name>.yaml", contract.GroupName)}})
	}
	return out
}

// checkInfrastructureRef returns the problems of a Cluster's spec.infrastructureRef.
func (r release) checkInfrastructureRef(f *YAMLFile, cluster *unstructured.Unstructured, apiVersion string, crds []crdEntry) []string {
	ref, found, err := unstructured.NestedMap(cluster.Object, "spec", "infrastructureRef")
	switch {
	case err != nil:
		return []string{"spec.infrastructureRef is not a map of apiGroup, kind and name"}
	case !found:
		return []string{"the Cluster has no spec.infrastructureRef (nor spec.topology): reference the provider's InfraCluster"}
	}
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	var problems []string
	if kind == "" || name == "" {
		problems = append(problems, "infrastructureRef needs kind and name")
	}
	var group string
	if apiVersion == string(contract.V1Beta1) {
		av, _ := ref["apiVersion"].(string)
		if av == "" {
			problems = append(problems, "a cluster.x-k8s.io/v1beta1 Cluster references its infrastructure with apiVersion, kind and name: apiVersion is missing")
		}
		if gv, err := schema.ParseGroupVersion(av); err == nil {
			group = gv.Group
		}
	} else {
		group, _ = ref["apiGroup"].(string)
		av, hasAPIVersion := ref["apiVersion"].(string)
		if hasAPIVersion || group == "" {
			problems = append(problems, fmt.Sprintf("a cluster.x-k8s.io/%s Cluster references its infrastructure with apiGroup, kind and name (no apiVersion)", apiVersion))
		}
		if gv, err := schema.ParseGroupVersion(av); group == "" && err == nil {
			group = gv.Group
		}
	}
	if kind == "" {
		return problems
	}
	if len(crds) > 0 {
		var kinds []string
		var match *crdEntry
		for i, e := range crds {
			kinds = append(kinds, e.crd.Spec.Names.Kind)
			if e.crd.Spec.Names.Kind == kind && (group == "" || e.crd.Spec.Group == group) {
				match = &crds[i]
			}
		}
		switch {
		case match == nil:
			slices.Sort(kinds)
			problems = append(problems, fmt.Sprintf("infrastructureRef names %s in group %q, which no CRD of the provider defines (kinds: %s)", kind, group, strings.Join(slices.Compact(kinds), ", ")))
		case !match.known || match.role != lint.KindInfraCluster:
			problems = append(problems, fmt.Sprintf("infrastructureRef names %s, which is not an InfraCluster kind (its CRD plays role %q)", kind, roleName(match.role, match.known)))
		}
	}
	if name != "" && !slices.ContainsFunc(f.Documents, func(d Document) bool {
		return d.Object.GetKind() == kind && d.Object.GetName() == name
	}) {
		problems = append(problems, fmt.Sprintf("infrastructureRef names %s/%s, which is not in the template: a cluster template must hold every object the cluster needs", kind, name))
	}
	return problems
}

func roleName(k lint.Kind, known bool) string {
	if !known {
		return "none"
	}
	return string(k)
}
