// Package embedded has statuses that embed a common struct inline, a type without status, a skipped type
// and types that are not root objects.
package embedded

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// CommonStatus is embedded inline in the statuses.
type CommonStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Resources  map[string]string  `json:"resources,omitempty"`
	// Addresses is shadowed by BarStatus's own.
	Addresses []string `json:"addresses,omitempty"`
}

// BarStatus is the status of Bar.
type BarStatus struct {
	CommonStatus   `json:",inline"`
	Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`
	Addresses      []contract.MachineAddress           `json:"addresses,omitempty"`
}

// BarSpec is the spec of Bar.
type BarSpec struct {
	ProviderID string `json:"providerID,omitempty"`
}

// Bar embeds CommonStatus in its status.
// +kubebuilder:object:root=true
type Bar struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BarSpec   `json:"spec,omitempty"`
	Status            BarStatus `json:"status,omitempty"`
}

// Baz has a spec and no status.
// +kubebuilder:object:root=true
type Baz struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BarSpec `json:"spec,omitempty"`
}

// Skipped would have accessors, and its replicas is not the contract's type, but it opts out.
// +kubebuilder:object:root=true
// +capkit:accessors=false
type Skipped struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            struct {
		Replicas string `json:"replicas"`
	} `json:"status"`
}

// NotRoot has the fields but no root marker.
type NotRoot struct {
	Status BarStatus `json:"status,omitempty"`
}

// Qux has neither spec nor status.
// +kubebuilder:object:root=true
type Qux struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
