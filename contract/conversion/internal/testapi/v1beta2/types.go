// Package v1beta2 is the test provider's FooMachine and FooCluster on the v1beta2 contract: the hubs of their
// conversions.
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

// FooCluster is an InfraCluster on the v1beta2 contract.
// +kubebuilder:object:root=true
type FooCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooClusterSpec   `json:"spec,omitempty"`
	Status FooClusterStatus `json:"status,omitempty"`
}

// FooClusterSpec is the spec of a FooCluster.
type FooClusterSpec struct {
	// controlPlaneEndpoint is the endpoint of the cluster's API server.
	// +optional
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
}

// FooClusterStatus is the status of a FooCluster.
type FooClusterStatus struct {
	// initialization holds status.initialization.provisioned.
	// +optional
	Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`

	// conditions are the cluster's conditions.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// failureDomains are the failure domains machines may be placed in, sorted by name unless written otherwise.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=100
	FailureDomains []contract.FailureDomain `json:"failureDomains,omitempty"`
}

// Hub marks FooCluster as the hub of its conversions.
func (*FooCluster) Hub() {}
