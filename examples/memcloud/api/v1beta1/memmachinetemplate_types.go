package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

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

	// spec is the spec of the MemMachines made from the template; providerID must be unset.
	// +required
	Spec MemMachineSpec `json:"spec"`
}

// MemMachineTemplate is a template for MemMachines, the InfraMachineTemplate of contract v1beta1, used by
// KubeadmControlPlane, MachineDeployment and MachineSet. Its spec cannot change after creation. It has no
// status: the capacity for autoscaling from zero came with v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=memmachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta1=v1beta1"
// +kubebuilder:deprecatedversion:warning="infrastructure.memcloud.capkit.io/v1beta1 is deprecated; use v1beta2"
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
}

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
