// Package nothing has a root type without contract fields.
package nothing

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Identity is an identity object.
// +kubebuilder:object:root=true
type Identity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              IdentitySpec `json:"spec"`
}

// IdentitySpec is the spec of Identity.
type IdentitySpec struct {
	SecretName string `json:"secretName"`
}
