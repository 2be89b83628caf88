package v1beta2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// PodMachineFinalizer is the finalizer podcloud's machine controller puts on a PodMachine before it creates
// the machine's Secret and Pod.
const PodMachineFinalizer = GroupName + "/podmachine"

// PodMachineSpec is the desired state of a PodMachine. Only providerID may change after creation, and only
// from empty to a value.
type PodMachineSpec struct {
	// providerID is "podcloud://" followed by the Pod's namespace, name and UID. The controller sets it once
	// the Pod exists.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// failureDomain is the zone to run the Pod in (a nodeSelector on topology.kubernetes.io/zone); Cluster
	// API copies it from the Machine.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// image is the node image the Pod runs. Empty means the kind node image of the Machine's Kubernetes
	// version, kindest/node:<version>.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// resources are the cpu and memory of the machine, for example {cpu: "2", memory: 4Gi}: the node
	// container gets them as both its requests and its limits, so the target cluster's scheduler places the Pod
	// on a node that has them free and the machine gets no more than them. Only cpu and memory may be set, each
	// greater than zero. Empty means no requests and no limits: the machine shares the CPUs and memory of the
	// node the Pod lands on, and a PodMachineTemplate without resources reports no capacity.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.all(k, k == 'cpu' || k == 'memory')",message="only cpu and memory may be set"
	Resources corev1.ResourceList `json:"resources,omitempty"`
}

// PodMachineResourceNames are the resources a PodMachine may set in spec.resources.
var PodMachineResourceNames = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// PodMachineStatus is the observed state of a PodMachine.
// +kubebuilder:validation:MinProperties=1
type PodMachineStatus struct {
	// initialization holds status.initialization.provisioned, set to true once the Pod runs and
	// spec.providerID and status.addresses are set. It never goes back to false.
	// +optional
	Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`

	// addresses are the Pod's IP and host name; Cluster API copies them to the Machine.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Addresses []contract.MachineAddress `json:"addresses,omitempty"`

	// failureDomain is the zone of the node the Pod runs on.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// conditions are the observations of the PodMachine's state: Ready, BootstrapSecretReady, PodReady and
	// Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// resources maps the objects the controller created in the target cluster, besides the Pod, to their
	// IDs: "bootstrap" → the Secret holding the bootstrap script.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Resources map[string]string `json:"resources,omitempty"`

	// podPhase is the phase of the Pod as last observed: Pending, Running, Succeeded, Failed or Unknown, or
	// Deleted once the Pod was deleted behind podcloud's back.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	PodPhase string `json:"podPhase,omitempty"`

	// nodeName is the node of the target cluster the Pod runs on.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	NodeName string `json:"nodeName,omitempty"`

	// observedGeneration is the metadata.generation the controller last reconciled.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// PodMachine is one Pod of a Cluster API Machine: a privileged Pod running a node image whose entrypoint runs
// the Machine's bootstrap script, rendered from its cloud-config. It is the InfraMachine of contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=podmachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this PodMachine belongs to"
// +kubebuilder:printcolumn:name="Machine",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Machine")].name`,description="Machine this PodMachine belongs to"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the Pod is provisioned"
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=".status.podPhase",description="Pod phase"
// +kubebuilder:printcolumn:name="Node",type="string",JSONPath=".status.nodeName",description="Node of the target cluster"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type PodMachine struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the PodMachine.
	// +optional
	// +kubebuilder:default={}
	Spec PodMachineSpec `json:"spec,omitempty"`

	// status is the observed state of the PodMachine.
	// +optional
	Status PodMachineStatus `json:"status,omitempty,omitzero"`
}

// PodMachineList is a list of PodMachines.
//
// +kubebuilder:object:root=true
type PodMachineList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the PodMachines.
	Items []PodMachine `json:"items"`
}

// PodMachineTemplateSpec is the desired state of a PodMachineTemplate.
type PodMachineTemplateSpec struct {
	// template is the PodMachine that Cluster API makes from this template, one per Machine.
	// +required
	Template PodMachineTemplateResource `json:"template"`
}

// PodMachineTemplateResource is the metadata and spec of the PodMachines made from a template.
type PodMachineTemplateResource struct {
	// metadata holds the labels and annotations of the PodMachines made from the template.
	// +optional
	ObjectMeta contract.TemplateObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of the PodMachines made from the template; providerID must be empty.
	// +required
	Spec PodMachineSpec `json:"spec"`
}

// PodMachineTemplate is a template for PodMachines, the InfraMachineTemplate of contract v1beta2, used by
// MachineDeployments, MachineSets and control plane providers. Its spec cannot change after creation.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=podmachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Image",type="string",JSONPath=".spec.template.spec.image",description="Node image of the machines; empty for the kind node image of the Machine's version"
// +kubebuilder:printcolumn:name="CPU",type="string",JSONPath=".spec.template.spec.resources.cpu",description="CPUs of each machine; empty for the CPUs of the node the Pod lands on"
// +kubebuilder:printcolumn:name="Memory",type="string",JSONPath=".spec.template.spec.resources.memory",description="Memory of each machine; empty for the memory of the node the Pod lands on"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type PodMachineTemplate struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the template.
	// +required
	Spec PodMachineTemplateSpec `json:"spec"`

	// status is the capacity and node info of the machines the template makes, which the cluster autoscaler
	// reads to scale a MachineDeployment up from zero. The controller writes it: status.capacity holds
	// spec.template.spec.resources, and nothing when they are empty, because a Pod without limits gets the
	// CPUs and memory of whichever node it lands on, which the template cannot know. status.nodeInfo holds
	// operatingSystem linux; the architecture is left out, as the Pod may land on a node of any architecture.
	// +optional
	Status contract.MachineTemplateCapacity `json:"status,omitempty,omitzero"`
}

// GetCapacity returns status; it implements capkit's contract.CapacityAccessor.
func (t *PodMachineTemplate) GetCapacity() contract.MachineTemplateCapacity { return t.Status }

// SetCapacity sets status; it implements capkit's contract.CapacityAccessor.
func (t *PodMachineTemplate) SetCapacity(c contract.MachineTemplateCapacity) { t.Status = c }

// PodMachineTemplateList is a list of PodMachineTemplates.
//
// +kubebuilder:object:root=true
type PodMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the PodMachineTemplates.
	Items []PodMachineTemplate `json:"items"`
}
