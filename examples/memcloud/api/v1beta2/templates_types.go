package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// MemClusterTemplateSpec is the desired state of a MemClusterTemplate.
type MemClusterTemplateSpec struct {
	// template is the MemCluster that Cluster API makes from this template (with ClusterClass).
	// +required
	Template MemClusterTemplateResource `json:"template"`
}

// MemClusterTemplateResource is the metadata and spec of the MemClusters made from a template.
type MemClusterTemplateResource struct {
	// metadata holds the labels and annotations of the MemClusters made from the template.
	// +optional
	ObjectMeta contract.TemplateObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of the MemClusters made from the template.
	// +required
	Spec MemClusterSpec `json:"spec"`
}

// MemClusterTemplate is a template for MemClusters, the InfraClusterTemplate of contract v1beta2. Its spec
// cannot change after creation: create a new template and point the ClusterClass at it.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:path=memclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type MemClusterTemplate struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the template.
	// +required
	Spec MemClusterTemplateSpec `json:"spec"`
}

// MemClusterTemplateList is a list of MemClusterTemplates.
//
// +kubebuilder:object:root=true
type MemClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the MemClusterTemplates.
	Items []MemClusterTemplate `json:"items"`
}

// MemMachineTemplateSpec is the desired state of a MemMachineTemplate.
type MemMachineTemplateSpec struct {
	// template is the MemMachine that Cluster API makes from this template, one per Machine.
	// +required
	Template MemMachineTemplateResource `json:"template"`
}

// MemMachineTemplateResource is the metadata and spec of the MemMachines made from a template.
type MemMachineTemplateResource struct {
	// metadata holds the labels and annotations of the MemMachines made from the template.
	// +optional
	ObjectMeta contract.TemplateObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of the MemMachines made from the template; providerID must be empty.
	// +required
	Spec MemMachineSpec `json:"spec"`
}

// MemMachineTemplate is a template for MemMachines, the InfraMachineTemplate of contract v1beta2, used by
// KubeadmControlPlane, MachineDeployment and MachineSet. Its spec cannot change after creation: create a new
// template and point the owner at it, which rolls the machines out.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=memmachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Image",type="string",JSONPath=".spec.template.spec.image",description="Boot image of the machines"
// +kubebuilder:printcolumn:name="Flavor",type="string",JSONPath=".spec.template.spec.flavor",description="Size of the machines"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type MemMachineTemplate struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the template.
	// +required
	Spec MemMachineTemplateSpec `json:"spec"`

	// status is the capacity and node info of the machines the template makes (flavor and image), which the
	// cluster autoscaler reads to scale a MachineDeployment up from zero. The controller writes it.
	// +optional
	Status contract.MachineTemplateCapacity `json:"status,omitempty,omitzero"`
}

// GetCapacity returns status; it implements capkit's contract.CapacityAccessor.
func (t *MemMachineTemplate) GetCapacity() contract.MachineTemplateCapacity { return t.Status }

// SetCapacity sets status; it implements capkit's contract.CapacityAccessor.
func (t *MemMachineTemplate) SetCapacity(c contract.MachineTemplateCapacity) { t.Status = c }

// MemMachineTemplateList is a list of MemMachineTemplates.
//
// +kubebuilder:object:root=true
type MemMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the MemMachineTemplates.
	Items []MemMachineTemplate `json:"items"`
}
