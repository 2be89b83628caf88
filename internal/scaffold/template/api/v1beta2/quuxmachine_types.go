package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// QuuxMachineFinalizer is the finalizer the machine controller puts on a QuuxMachine before it creates the
// instance, so that deleting the QuuxMachine deletes the instance first.
const QuuxMachineFinalizer = GroupName + "/quuxmachine"

// Defaults of a QuuxMachine's spec, set by the CRD and by the defaulting webhook.
const (
	DefaultImage        = "ubuntu-24.04"
	DefaultInstanceType = "small"
)

// QuuxMachineSpec is the desired state of a QuuxMachine. Only providerID may change after creation, and
// only from empty to a value.
type QuuxMachineSpec struct {
	// providerID is "quux://" followed by the instance ID. The controller sets it once the instance exists.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

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

	// instanceType is the size of the instance.
	// +optional
	// +kubebuilder:default="small"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	InstanceType string `json:"instanceType,omitempty"`
}

// QuuxMachineStatus is the observed state of a QuuxMachine.
// +kubebuilder:validation:MinProperties=1
type QuuxMachineStatus struct {
	// initialization holds status.initialization.provisioned, which the controller sets to true once the
	// instance is running and spec.providerID and status.addresses are set.
	// +optional
	Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`

	// addresses are the addresses of the instance; Cluster API copies them to the Machine.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Addresses []contract.MachineAddress `json:"addresses,omitempty"`

	// conditions are the observations of the QuuxMachine's state: Ready, InstanceReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// resources maps each cloud resource the controller created to its cloud ID (the instance's is in
	// spec.providerID).
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Resources map[string]string `json:"resources,omitempty"`
}

// QuuxMachine is one instance of a Cluster API Machine. It is the InfraMachine of contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=quuxmachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this QuuxMachine belongs to"
// +kubebuilder:printcolumn:name="ProviderID",type="string",JSONPath=".spec.providerID",description="Provider ID of the instance"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the instance is provisioned"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type QuuxMachine struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the QuuxMachine.
	// +optional
	// +kubebuilder:default={}
	Spec QuuxMachineSpec `json:"spec,omitempty"`

	// status is the observed state of the QuuxMachine.
	// +optional
	Status QuuxMachineStatus `json:"status,omitempty,omitzero"`
}

// QuuxMachineList is a list of QuuxMachines.
//
// +kubebuilder:object:root=true
type QuuxMachineList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the QuuxMachines.
	Items []QuuxMachine `json:"items"`
}
