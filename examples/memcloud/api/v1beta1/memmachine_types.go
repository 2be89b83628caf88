package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// MemMachineSpec is the desired state of a MemMachine. Only providerID may change after creation, and only
// from unset to a value.
type MemMachineSpec struct {
	// providerID is "memcloud://" followed by the instance ID. The controller sets it once the instance
	// exists; Cluster API copies it to the Machine and matches it with the Node.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID *string `json:"providerID,omitempty"`

	// failureDomain is the failure domain to place the instance in; Cluster API copies it from the Machine.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// image is the boot image of the instance.
	// +optional
	// +kubebuilder:default="ubuntu-24.04"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Image string `json:"image,omitempty"`

	// flavor is the size of the instance: small, medium or large.
	// +optional
	// +kubebuilder:default=medium
	Flavor v1beta2.Flavor `json:"flavor,omitempty"`
}

// MemMachineStatus is the observed state of a MemMachine.
type MemMachineStatus struct {
	// ready is true once the instance is running and spec.providerID and status.addresses are set.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// addresses are the addresses of the instance; Cluster API copies them to the Machine.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Addresses []contract.MachineAddress `json:"addresses,omitempty"`

	// conditions are the observations of the MemMachine's state: Ready, InstanceReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []conversion.V1Beta1Condition `json:"conditions,omitempty"`

	// failureReason is a terminal problem's reason, for example InstanceFailed.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureReason *string `json:"failureReason,omitempty"`

	// failureMessage is a terminal problem's message, for humans.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=10240
	FailureMessage *string `json:"failureMessage,omitempty"`

	// resources maps each cloud resource the controller created to its cloud ID, for example
	// "instance" → "i-1f2e3d4c".
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Resources map[string]string `json:"resources,omitempty"`

	// instanceState is the state of the instance as the cloud last reported it: pending, running, stopped
	// or failed.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	InstanceState string `json:"instanceState,omitempty"`

	// observedGeneration is the metadata.generation the controller last reconciled.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// MemMachine is one memcloud instance of a Cluster API Machine. It is the InfraMachine of contract v1beta1.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=memmachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta1=v1beta1"
// +kubebuilder:deprecatedversion:warning="infrastructure.memcloud.capkit.io/v1beta1 is deprecated; use v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this MemMachine belongs to"
// +kubebuilder:printcolumn:name="Machine",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Machine")].name`,description="Machine this MemMachine belongs to"
// +kubebuilder:printcolumn:name="ProviderID",type="string",JSONPath=".spec.providerID",description="Provider ID of the instance"
// +kubebuilder:printcolumn:name="Ready",type="boolean",JSONPath=".status.ready",description="Whether the instance is ready"
// +kubebuilder:printcolumn:name="State",type="string",JSONPath=".status.instanceState",description="Instance state"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type MemMachine struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MemMachine.
	// +optional
	// +kubebuilder:default={}
	Spec MemMachineSpec `json:"spec,omitempty"`

	// status is the observed state of the MemMachine.
	// +optional
	Status MemMachineStatus `json:"status,omitempty"`
}

// MemMachineList is a list of MemMachines.
//
// +kubebuilder:object:root=true
type MemMachineList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the MemMachines.
	Items []MemMachine `json:"items"`
}
