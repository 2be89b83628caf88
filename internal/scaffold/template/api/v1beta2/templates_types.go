package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// QuuxClusterTemplateSpec is the desired state of a QuuxClusterTemplate.
type QuuxClusterTemplateSpec struct {
	// template is the QuuxCluster that Cluster API makes from this template (with ClusterClass).
	// +required
	Template QuuxClusterTemplateResource `json:"template"`
}

// QuuxClusterTemplateResource is the metadata and spec of the QuuxClusters made from a template.
type QuuxClusterTemplateResource struct {
	// metadata holds the labels and annotations of the QuuxClusters made from the template.
	// +optional
	ObjectMeta contract.TemplateObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of the QuuxClusters made from the template.
	// +required
	Spec QuuxClusterSpec `json:"spec"`
}

// QuuxClusterTemplate is a template for QuuxClusters, the InfraClusterTemplate of contract v1beta2. Its spec
// cannot change after creation: create a new template and point the ClusterClass at it.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:path=quuxclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type QuuxClusterTemplate struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the template.
	// +required
	Spec QuuxClusterTemplateSpec `json:"spec"`
}

// QuuxClusterTemplateList is a list of QuuxClusterTemplates.
//
// +kubebuilder:object:root=true
type QuuxClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the QuuxClusterTemplates.
	Items []QuuxClusterTemplate `json:"items"`
}

// QuuxMachineTemplateSpec is the desired state of a QuuxMachineTemplate.
type QuuxMachineTemplateSpec struct {
	// template is the QuuxMachine that Cluster API makes from this template, one per Machine.
	// +required
	Template QuuxMachineTemplateResource `json:"template"`
}

// QuuxMachineTemplateResource is the metadata and spec of the QuuxMachines made from a template.
type QuuxMachineTemplateResource struct {
	// metadata holds the labels and annotations of the QuuxMachines made from the template.
	// +optional
	ObjectMeta contract.TemplateObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of the QuuxMachines made from the template; providerID must be empty.
	// +required
	Spec QuuxMachineSpec `json:"spec"`
}

// QuuxMachineTemplate is a template for QuuxMachines, the InfraMachineTemplate of contract v1beta2, used by
// KubeadmControlPlane, MachineDeployment and MachineSet. Its spec cannot change after creation: create a new
// template and point the owner at it, which rolls the machines out.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:path=quuxmachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Image",type="string",JSONPath=".spec.template.spec.image",description="Boot image of the machines"
// +kubebuilder:printcolumn:name="InstanceType",type="string",JSONPath=".spec.template.spec.instanceType",description="Size of the machines"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type QuuxMachineTemplate struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the template.
	// +required
	Spec QuuxMachineTemplateSpec `json:"spec"`
}

// QuuxMachineTemplateList is a list of QuuxMachineTemplates.
//
// +kubebuilder:object:root=true
type QuuxMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the QuuxMachineTemplates.
	Items []QuuxMachineTemplate `json:"items"`
}
