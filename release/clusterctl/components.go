package clusterctl

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Rule identifiers of the components checks of CheckFiles.
const (
	// RuleComponentsNamespace: a components file holds exactly one Namespace, the default target namespace of
	// clusterctl init, which refuses components with more than one, and, without --target-namespace, with none.
	RuleComponentsNamespace = "components.namespace"
	// RuleComponentsObjectNamespace: every namespaced object is in the components' Namespace.
	RuleComponentsObjectNamespace = "components.object-namespace"
	// RuleComponentsProviderLabel: every object carries cluster.x-k8s.io/provider, e.g. infrastructure-mem, the same on all.
	RuleComponentsProviderLabel = "components.provider-label"
	// RuleComponentsManager: a Deployment runs the controller in a container named manager.
	RuleComponentsManager = "components.manager"
	// RuleComponentsImage: the image of every container and init container of a Deployment or DaemonSet is, with
	// clusterctl's default variables, a canonical reference (see CanonicalImage), e.g.
	// ${MEMCLOUD_IMAGE:=docker.io/capkit/memcloud:dev}; clusterctl init refuses "capkit/memcloud:dev"
	// ("repository name must be canonical"). An image that needs a variable without a default is not checked.
	RuleComponentsImage = "components.image"
	// RuleComponentsInjectCAFrom: the cert-manager.io/inject-ca-from annotation of a webhook configuration or a
	// CRD is <namespace>/<certificate name>; clusterctl init refuses any other value.
	RuleComponentsInjectCAFrom = "components.inject-ca-from"
)

// injectCAFromAnnotation is cert-manager's annotation that clusterctl rewrites to the target namespace.
const injectCAFromAnnotation = "cert-manager.io/inject-ca-from"

// injectCAFromKinds are the kinds whose injectCAFromAnnotation clusterctl rewrites.
var injectCAFromKinds = map[string]bool{"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"CustomResourceDefinition": true}

// providerLabelValue matches the values of the cluster.x-k8s.io/provider label clusterctl uses: "cluster-api" or
// "<type>-<name>" with a lower-case DNS label name.
var providerLabelValue = regexp.MustCompile(`^(cluster-api|(infrastructure|bootstrap|control-plane|ipam|runtime-extension|addon)-[a-z0-9]([-a-z0-9]*[a-z0-9])?)$`)

// clusterScopedKinds are the built-in kinds, and common add-on kinds, that are not namespaced.
var clusterScopedKinds = map[string]bool{
	"Namespace": true, "CustomResourceDefinition": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true, "ValidatingAdmissionPolicy": true,
	"ValidatingAdmissionPolicyBinding": true, "MutatingAdmissionPolicy": true, "MutatingAdmissionPolicyBinding": true,
	"APIService": true, "PriorityClass": true, "StorageClass": true, "CSIDriver": true, "IngressClass": true,
	"RuntimeClass": true, "PersistentVolume": true, "Node": true, "ClusterIssuer": true,
	"FlowSchema": true, "PriorityLevelConfiguration": true, "VolumeAttachment": true,
}

// checkComponents checks a *-components.yaml file.
func (r release) checkComponents(f *YAMLFile) Findings {
	var out Findings
	add := func(d Document, rule, path, format string, args ...any) {
		out = append(out, finding(d, lint.Violation{Rule: rule, Object: d.ObjectRef(), Path: path, Message: fmt.Sprintf(format, args...)}))
	}
	scoped := r.clusterScoped()
	targetNS, nsCount := "", 0
	for _, d := range f.Documents {
		if d.Object.GetKind() != "Namespace" {
			continue
		}
		nsCount++
		if nsCount == 1 {
			targetNS = d.Object.GetName()
			continue
		}
		add(d, RuleComponentsNamespace, "", "second Namespace in the components (the first is %q): clusterctl init refuses components with more than one Namespace", targetNS)
	}
	if nsCount == 0 {
		out = append(out, Finding{File: f.Name, Violation: lint.Violation{Rule: RuleComponentsNamespace,
			Message: "no Namespace in the components: clusterctl init without --target-namespace refuses them (\"target namespace can't be defaulted\"); add the provider's Namespace, e.g. <name>-system"}})
	}
	providerValue, providerDoc := "", Document{}
	hasManager := false
	for _, d := range f.Documents {
		u := d.Object
		kind := u.GetKind()
		if !scoped[kind] {
			ns := u.GetNamespace()
			switch {
			case targetNS != "" && ns != targetNS:
				add(d, RuleComponentsObjectNamespace, "metadata.namespace", "namespace is %q, want the components' Namespace %q: clusterctl installs every namespaced object in the target namespace", ns, targetNS)
			case targetNS == "" && ns != "":
				add(d, RuleComponentsObjectNamespace, "metadata.namespace", "namespace is %q but the components have no Namespace object: add the Namespace, so that clusterctl can move every object to the target namespace", ns)
			}
		}
		value, ok := u.GetLabels()[contract.ProviderLabel]
		switch {
		case !ok:
			add(d, RuleComponentsProviderLabel, "metadata.labels", "no %q label: label every object, e.g. %s: infrastructure-<name>", contract.ProviderLabel, contract.ProviderLabel)
		case !providerLabelValue.MatchString(value):
			add(d, RuleComponentsProviderLabel, "metadata.labels", "label %q is %q, want <type>-<name> such as %q (types: infrastructure, bootstrap, control-plane, ipam, runtime-extension, addon)", contract.ProviderLabel, value, "infrastructure-mem")
		case providerValue == "":
			providerValue, providerDoc = value, d
		case value != providerValue:
			add(d, RuleComponentsProviderLabel, "metadata.labels", "label %q is %q, but %s has %q: one components file is one provider", contract.ProviderLabel, value, providerDoc.ObjectRef(), providerValue)
		}
		if kind == "Deployment" && hasContainer(u, "manager") {
			hasManager = true
		}
		if kind == "Deployment" || kind == "DaemonSet" {
			for _, v := range checkImages(u) {
				add(d, RuleComponentsImage, v.path, "%s", v.message)
			}
		}
		if value, ok := u.GetAnnotations()[injectCAFromAnnotation]; ok && injectCAFromKinds[kind] {
			if ns, name, _ := strings.Cut(value, "/"); ns == "" || name == "" || strings.Contains(name, "/") {
				add(d, RuleComponentsInjectCAFrom, "metadata.annotations", "annotation %q is %q, want <namespace>/<certificate name>: clusterctl init refuses any other value", injectCAFromAnnotation, value)
			}
		}
	}
	if !hasManager {
		out = append(out, Finding{File: f.Name, Violation: lint.Violation{Rule: RuleComponentsManager,
			Message: "no Deployment with a container named \"manager\": clusterctl expects the controller to run in the container \"manager\" of a Deployment"}})
	}
	return out
}

// clusterScoped returns the kinds that are not namespaced: built-in ones and those of cluster-scoped CRDs.
func (r release) clusterScoped() map[string]bool {
	out := make(map[string]bool, len(clusterScopedKinds)+len(r.crds))
	for k := range clusterScopedKinds {
		out[k] = true
	}
	for _, e := range r.crds {
		if e.crd.Spec.Scope == apiextensionsv1.ClusterScoped {
			out[e.crd.Spec.Names.Kind] = true
		}
	}
	return out
}

// imageIssue is an image that clusterctl refuses, at its path in a Deployment or DaemonSet.
type imageIssue struct{ path, message string }

// checkImages returns the images of a Deployment's or DaemonSet's containers and init containers that are not
// canonical with clusterctl's default variables.
func checkImages(u *unstructured.Unstructured) []imageIssue {
	var out []imageIssue
	for _, field := range []string{"containers", "initContainers"} {
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", field)
		for i, c := range containers {
			m, _ := c.(map[string]any)
			raw, ok := m["image"].(string)
			if !ok {
				continue
			}
			image, known := defaultValue(raw)
			if !known {
				continue // a variable without a default: clusterctl init needs it set, and its value is the user's
			}
			what := fmt.Sprintf("image %q", raw)
			if image != raw {
				what = fmt.Sprintf("image %q is %q with clusterctl's default variables, which", raw, image)
			}
			path := fmt.Sprintf("spec.template.spec.%s[%d].image", field, i)
			canonical, err := CanonicalImage(image)
			switch {
			case err != nil:
				out = append(out, imageIssue{path, fmt.Sprintf("%s is no image reference clusterctl init can parse: %s", what, err.Error())})
			case canonical != image:
				out = append(out, imageIssue{path, fmt.Sprintf("%s is not canonical: clusterctl init refuses it (\"repository name must be canonical\"); write %q", what, canonical)})
			}
		}
	}
	return out
}

// hasContainer reports whether a Deployment's pod template has a container called name.
func hasContainer(u *unstructured.Unstructured, name string) bool {
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return true
		}
	}
	return false
}

// isNamespaceVariable reports whether s is the clusterctl target-namespace variable, ${NAMESPACE} or ${ NAMESPACE }.
func isNamespaceVariable(s string) bool {
	inner, ok := strings.CutPrefix(s, "${")
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, "}")
	return ok && strings.TrimSpace(inner) == "NAMESPACE"
}
