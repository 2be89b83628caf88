// Package v1beta2 is the test provider's FooMachine on the v1beta2 contract: the hub of its conversions.
// +kubebuilder:object:generate=true
package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// FooMachine is an InfraMachine on the v1beta2 contract.
// +kubebuilder:object:root=true
type FooMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooMachineSpec   `json:"spec,omitempty"`
	Status FooMachineStatus `json:"status,omitempty"`
}

// FooMachineSpec is the spec of a FooMachine.
type FooMachineSpec struct {
	// providerID is the machine's ID for Cluster API.
	// +optional
	ProviderID string `json:"providerID,omitempty"`

	// size is the provider's own field, the same in both versions.
	// +optional
	Size string `json:"size,omitempty"`
}

// FooMachineStatus is the status of a FooMachine.
type FooMachineStatus struct {
	// initialization holds status.initialization.provisioned.
	// +optional
	Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`

	// conditions are the machine's conditions.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// failureDomain is where the machine was placed, which v1beta1 cannot hold.
	// +optional
	FailureDomain string `json:"failureDomain,omitempty"`
}

// Hub marks FooMachine as the hub of its conversions.
func (*FooMachine) Hub() {}
