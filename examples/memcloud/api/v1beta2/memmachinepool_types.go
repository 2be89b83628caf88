package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// MemMachinePoolFinalizer is the finalizer memcloud's machine pool controller puts on a MemMachinePool before
// it creates the instance group.
const MemMachinePoolFinalizer = GroupName + "/memmachinepool"

// MemMachinePoolSpec is the desired state of a MemMachinePool: the instances of a memcloud instance group,
// whose size follows the MachinePool's spec.replicas. The instances run in the cluster's worker subnet.
type MemMachinePoolSpec struct {
	// providerIDList are the provider IDs of the group's instances ("memcloud://<instance ID>"), which Cluster
	// API matches with the Nodes. The controller keeps it up to date.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=512
	ProviderIDList []string `json:"providerIDList,omitempty"`

	// image is the boot image of the instances. It cannot change after creation.
	// +optional
	// +kubebuilder:default="ubuntu-24.04"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Image string `json:"image,omitempty"`

	// flavor is the size of the instances: small, medium or large. It cannot change after creation.
	// +optional
	// +kubebuilder:default=medium
	Flavor Flavor `json:"flavor,omitempty"`
}

// MemMachinePoolStatus is the observed state of a MemMachinePool.
// +kubebuilder:validation:MinProperties=1
type MemMachinePoolStatus struct {
	// initialization holds status.initialization.provisioned, set to true once the instance group exists with
	// every instance running.
	// +optional
	Initialization contract.InfraMachinePoolInitialization `json:"initialization,omitempty,omitzero"`

	// ready mirrors status.initialization.provisioned: Cluster API v1.14 reads it for machine pools.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// replicas is the number of instances the group has, the length of spec.providerIDList.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas,omitempty"`

	// instances are the group's instances as last observed: provider ID, state and address. Cluster API does
	// not read them; they are for people and tools.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1000
	Instances []PoolInstance `json:"instances,omitempty"`

	// conditions are the observations of the MemMachinePool's state: Ready, InstanceGroupReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// resources maps the cloud resources the controller created to their IDs: "instance-group" → "ig-…".
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Resources map[string]string `json:"resources,omitempty"`
}

// PoolInstance is one instance of a MemMachinePool's group.
type PoolInstance struct {
	// providerID is the instance's provider ID, as in spec.providerIDList.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID"`

	// state is the instance's state: pending, running, stopped or failed.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	State string `json:"state,omitempty"`

	// address is the instance's private IP address.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Address string `json:"address,omitempty"`
}

// MemMachinePool is a memcloud instance group of a Cluster API MachinePool. It is the InfraMachinePool of
// contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=memmachinepools,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this MemMachinePool belongs to"
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas",description="Instances in the group"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the group is provisioned"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type MemMachinePool struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MemMachinePool.
	// +optional
	// +kubebuilder:default={}
	Spec MemMachinePoolSpec `json:"spec,omitempty"`

	// status is the observed state of the MemMachinePool.
	// +optional
	Status MemMachinePoolStatus `json:"status,omitempty,omitzero"`
}

// SetProvisioned sets status.initialization.provisioned and status.ready; it implements
// contract.ProvisionedAccessor.
func (p *MemMachinePool) SetProvisioned(v bool) {
	p.Status.Initialization.SetProvisioned(v)
	p.Status.Ready = v
}

// MemMachinePoolList is a list of MemMachinePools.
//
// +kubebuilder:object:root=true
type MemMachinePoolList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the MemMachinePools.
	Items []MemMachinePool `json:"items"`
}
