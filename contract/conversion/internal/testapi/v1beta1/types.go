// Package v1beta1 is the test provider's FooMachine and FooCluster on the v1beta1 contract. They are spokes, converted
// to and from the hubs in package v1beta2 with package conversion's helpers.
// +kubebuilder:object:generate=true
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
)

// FooMachine is an InfraMachine on the v1beta1 contract.
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
	ProviderID *string `json:"providerID,omitempty"`

	// size is the provider's own field, the same in both versions.
	// +optional
	Size string `json:"size,omitempty"`
}

// FooMachineStatus is the status of a FooMachine.
type FooMachineStatus struct {
	// ready is true when the machine's infrastructure is provisioned.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// conditions are the machine's conditions, in Cluster API's v1beta1 shape.
	// +optional
	Conditions []conversion.V1Beta1Condition `json:"conditions,omitempty"`

	// failureReason is a terminal problem's reason, which v1beta2 cannot hold.
	// +optional
	FailureReason *string `json:"failureReason,omitempty"`

	// failureMessage is a terminal problem's message, which v1beta2 cannot hold.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`
}

// LossyFooMachine is FooMachine with a conversion that forgets to stash what the hub cannot hold: the test
// that conversiontest.RoundTrip fails converts it.
// +kubebuilder:object:root=true
type LossyFooMachine struct {
	FooMachine `json:",inline"`
}

// FooCluster is an InfraCluster on the v1beta1 contract.
// +kubebuilder:object:root=true
type FooCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooClusterSpec   `json:"spec,omitempty"`
	Status FooClusterStatus `json:"status,omitempty"`
}

// FooClusterSpec is the spec of a FooCluster.
type FooClusterSpec struct {
	// controlPlaneEndpoint is the endpoint of the cluster's API server, the same in both versions.
	// +optional
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
}

// FooClusterStatus is the status of a FooCluster.
type FooClusterStatus struct {
	// ready is true when the cluster's infrastructure is provisioned.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// conditions are the cluster's conditions, in Cluster API's v1beta1 shape.
	// +optional
	Conditions []conversion.V1Beta1Condition `json:"conditions,omitempty"`

	// failureDomains are the failure domains machines may be placed in, keyed by name.
	// +optional
	FailureDomains map[string]conversion.V1Beta1FailureDomain `json:"failureDomains,omitempty"`

	// failureReason is a terminal problem's reason, which v1beta2 cannot hold.
	// +optional
	FailureReason *string `json:"failureReason,omitempty"`

	// failureMessage is a terminal problem's message, which v1beta2 cannot hold.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`
}
