package identity

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// AllowedNamespaces says which namespaces may use an identity. Embed it in the identity's spec as
// `allowedNamespaces`. A namespace in NamespaceList or matching Selector is allowed; nothing else is. Nil,
// empty ({}), an empty list and an empty selector allow no namespace. To allow every namespace, say so with a
// selector every namespace matches: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: Exists}]}.
// +kubebuilder:object:generate=true
type AllowedNamespaces struct {
	// list names the namespaces allowed to use the identity. Empty matches no namespace.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1024
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	NamespaceList []string `json:"list,omitempty"`

	// selector selects the namespaces allowed to use the identity by their labels. An empty selector
	// matches no namespace.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// Allows reports whether namespace ns may use an identity whose spec.allowedNamespaces is a. It fails only
// on a selector that is not valid, naming it.
func Allows(a *AllowedNamespaces, ns *corev1.Namespace) (bool, error) {
	switch {
	case a == nil || ns == nil:
		return false, nil
	case slices.Contains(a.NamespaceList, ns.Name):
		return true, nil
	case a.Selector == nil || (len(a.Selector.MatchLabels) == 0 && len(a.Selector.MatchExpressions) == 0):
		return false, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(a.Selector)
	if err != nil {
		return false, fmt.Errorf("cannot use spec.allowedNamespaces.selector: %w", err)
	}
	return sel.Matches(labels.Set(ns.Labels)), nil
}
