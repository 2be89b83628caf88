package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// VSphereMachineFinalizer is the finalizer vspherecloud's machine controller puts on a VSphereMachine before it
// clones the VM, so that deleting the VSphereMachine destroys the VM first.
const VSphereMachineFinalizer = GroupName + "/vspheremachine"

// VSphereMachineSpec is the desired state of a VSphereMachine: where its VM is cloned from and placed, and its
// size. The datacenter is the VSphereCluster's. Nothing but providerID, set once, changes after creation.
type VSphereMachineSpec struct {
	// providerID is "vsphere://" followed by the VM's BIOS UUID. The controller sets it once the clone has made
	// the VM; Cluster API copies it to the Machine and matches it with the Node.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// template is the VM template to clone, by name or inventory path.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Template string `json:"template"`

	// folder is the VM folder the VM is placed in, by name or inventory path; the VM's name (the VSphereMachine's)
	// is unique in it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Folder string `json:"folder"`

	// resourcePool is the resource pool the VM runs in, by name or inventory path. A Machine placed in a failure
	// domain (its spec.failureDomain) runs in the root resource pool of the domain's compute cluster instead; a
	// Machine without one needs resourcePool.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ResourcePool string `json:"resourcePool,omitempty"`

	// datastore is the datastore of the VM's files and disk, by name or inventory path, unless the Machine's
	// failure domain names another.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Datastore string `json:"datastore"`

	// network is the network (port group) of the VM's first network card, by name or inventory path, unless the
	// Machine's failure domain names another.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Network string `json:"network"`

	// numCPUs is the VM's number of virtual CPUs; unset keeps the template's.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=768
	NumCPUs int32 `json:"numCPUs,omitempty"`

	// memoryMiB is the VM's memory in MiB; unset keeps the template's.
	// +optional
	// +kubebuilder:validation:Minimum=4
	MemoryMiB int64 `json:"memoryMiB,omitempty"`

	// diskGiB is the size of the VM's first disk in GiB, at least the template's; unset keeps the template's.
	// +optional
	// +kubebuilder:validation:Minimum=1
	DiskGiB int32 `json:"diskGiB,omitempty"`
}

// VSphereMachineStatus is the observed state of a VSphereMachine.
// +kubebuilder:validation:MinProperties=1
type VSphereMachineStatus struct {
	// initialization holds status.initialization.provisioned, which the controller sets to true once the VM runs
	// and spec.providerID and status.addresses are set.
	// +optional
	Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`

	// addresses are the VM's addresses as guest tools report them, and its name; Cluster API copies them to the
	// Machine.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Addresses []contract.MachineAddress `json:"addresses,omitempty"`

	// conditions are the observations of the VSphereMachine's state: Ready, VMReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// resources maps the vCenter objects the controller created to their IDs, besides the VM, whose BIOS UUID
	// is in spec.providerID; none yet.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Resources map[string]string `json:"resources,omitempty"`
}

// VSphereMachine is one VM of a Cluster API Machine, cloned from a template with the Machine's bootstrap data as
// cloud-init's guestinfo. It is the InfraMachine of contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=vspheremachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this VSphereMachine belongs to"
// +kubebuilder:printcolumn:name="Machine",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Machine")].name`,description="Machine this VSphereMachine belongs to"
// +kubebuilder:printcolumn:name="ProviderID",type="string",JSONPath=".spec.providerID",description="Provider ID of the VM"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the VM is provisioned"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type VSphereMachine struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the VSphereMachine.
	// +required
	Spec VSphereMachineSpec `json:"spec"`

	// status is the observed state of the VSphereMachine.
	// +optional
	Status VSphereMachineStatus `json:"status,omitempty,omitzero"`
}

// VSphereMachineList is a list of VSphereMachines.
//
// +kubebuilder:object:root=true
type VSphereMachineList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the VSphereMachines.
	Items []VSphereMachine `json:"items"`
}

// VSphereMachineTemplateSpec is the desired state of a VSphereMachineTemplate.
type VSphereMachineTemplateSpec struct {
	// template is the VSphereMachine that Cluster API makes from this template, one per Machine.
	// +required
	Template VSphereMachineTemplateResource `json:"template"`
}

// VSphereMachineTemplateResource is the metadata and spec of the VSphereMachines made from a template.
type VSphereMachineTemplateResource struct {
	// metadata holds the labels and annotations of the VSphereMachines made from the template.
	// +optional
	ObjectMeta contract.TemplateObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of the VSphereMachines made from the template; providerID must be empty.
	// +required
	Spec VSphereMachineSpec `json:"spec"`
}

// VSphereMachineTemplate is a template for VSphereMachines, the InfraMachineTemplate of contract v1beta2, used by
// KubeadmControlPlane, MachineDeployment and MachineSet.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:path=vspheremachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Template",type="string",JSONPath=".spec.template.spec.template",description="VM template the machines are cloned from"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type VSphereMachineTemplate struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the template.
	// +required
	Spec VSphereMachineTemplateSpec `json:"spec"`
}

// VSphereMachineTemplateList is a list of VSphereMachineTemplates.
//
// +kubebuilder:object:root=true
type VSphereMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the VSphereMachineTemplates.
	Items []VSphereMachineTemplate `json:"items"`
}
