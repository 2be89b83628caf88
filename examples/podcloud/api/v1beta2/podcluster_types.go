package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// PodClusterFinalizer is the finalizer podcloud's cluster controller puts on a PodCluster before it creates
// anything in the target cluster.
const PodClusterFinalizer = GroupName + "/podcluster"

// ServiceType is the type of the control plane Service.
// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
type ServiceType string

// Service types.
const (
	// ServiceClusterIP reaches the API servers at the Service's cluster IP, from inside the target cluster.
	ServiceClusterIP ServiceType = "ClusterIP"
	// ServiceNodePort reaches them at the Service's cluster IP too, and at a port of every node.
	ServiceNodePort ServiceType = "NodePort"
	// ServiceLoadBalancer reaches them at the load balancer the target cluster provisions; the cluster is
	// provisioned once the load balancer reports an address.
	ServiceLoadBalancer ServiceType = "LoadBalancer"
)

// PodClusterSpec is the desired state of a PodCluster.
type PodClusterSpec struct {
	// controlPlaneEndpoint is the address of the cluster's API server. The controller sets it to the control
	// plane Service's address and port; set it yourself only for an endpoint podcloud does not manage. Once set,
	// it cannot change.
	// +optional
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// namespace is the namespace of the target cluster that holds the cluster's Pods, Secrets and Service. It
	// must exist; podcloud does not create or delete namespaces. Empty means the PodCluster's own namespace,
	// so that with the management cluster as the target each workload cluster lives in the namespace of its
	// Cluster. It cannot change after creation.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// controlPlaneService is the Service in front of the control plane Pods.
	// +optional
	// +kubebuilder:default={}
	ControlPlaneService ControlPlaneServiceSpec `json:"controlPlaneService,omitempty"`
}

// ControlPlaneServiceSpec is the Service in front of the control plane Pods.
type ControlPlaneServiceSpec struct {
	// type is the Service type: ClusterIP, NodePort or LoadBalancer. It cannot change after creation.
	// +optional
	// +kubebuilder:default=ClusterIP
	Type ServiceType `json:"type,omitempty"`

	// port is the port of the API servers, on the Service and on the Pods. It cannot change after creation.
	// +optional
	// +kubebuilder:default=6443
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// PodClusterStatus is the observed state of a PodCluster.
// +kubebuilder:validation:MinProperties=1
type PodClusterStatus struct {
	// initialization holds status.initialization.provisioned, set to true once the control plane Service has
	// an address and spec.controlPlaneEndpoint is set.
	// +optional
	Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`

	// conditions are the observations of the PodCluster's state: Ready, ServiceAccountReady, EndpointReady,
	// FailureDomainsReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// failureDomains are the zones of the target cluster's nodes (label topology.kubernetes.io/zone).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	FailureDomains []contract.FailureDomain `json:"failureDomains,omitempty"`

	// resources maps each object the controller created in the target cluster to its ID
	// ("namespace/name/uid"), by key. It is written as soon as the object is created and can be rebuilt from
	// the objects' ownership labels.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Resources map[string]string `json:"resources,omitempty"`

	// observedGeneration is the metadata.generation the controller last reconciled.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// PodCluster is the infrastructure of a Cluster API cluster whose machines are Pods: the ServiceAccount the
// Pods run as and the Service in front of the control plane Pods, in a namespace of the target cluster. It is
// the InfraCluster of contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=podclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this PodCluster belongs to"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the infrastructure is provisioned"
// +kubebuilder:printcolumn:name="Endpoint",type="string",JSONPath=".spec.controlPlaneEndpoint.host",description="API server endpoint host"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type PodCluster struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the PodCluster.
	// +optional
	// +kubebuilder:default={}
	Spec PodClusterSpec `json:"spec,omitempty"`

	// status is the observed state of the PodCluster.
	// +optional
	Status PodClusterStatus `json:"status,omitempty,omitzero"`
}

// TargetNamespace returns spec.namespace, or the PodCluster's namespace when it is empty.
func (c *PodCluster) TargetNamespace() string {
	if c.Spec.Namespace != "" {
		return c.Spec.Namespace
	}
	return c.Namespace
}

// PodClusterList is a list of PodClusters.
//
// +kubebuilder:object:root=true
type PodClusterList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the PodClusters.
	Items []PodCluster `json:"items"`
}

// PodClusterTemplateSpec is the desired state of a PodClusterTemplate.
type PodClusterTemplateSpec struct {
	// template is the PodCluster that Cluster API makes from this template, one per Cluster of a ClusterClass.
	// +required
	Template PodClusterTemplateResource `json:"template"`
}

// PodClusterTemplateResource is the metadata and spec of the PodClusters made from a template.
type PodClusterTemplateResource struct {
	// metadata holds the labels and annotations of the PodClusters made from the template.
	// +optional
	ObjectMeta contract.TemplateObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec is the spec of the PodClusters made from the template. controlPlaneEndpoint is usually left empty:
	// the controller sets each PodCluster's to the address of its own control plane Service.
	// +required
	Spec PodClusterSpec `json:"spec"`
}

// PodClusterTemplate is a template for PodClusters, the InfraClusterTemplate of contract v1beta2, used by
// ClusterClasses. Its spec cannot change after creation: create a new template and point the ClusterClass at
// it.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:path=podclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Service",type="string",JSONPath=".spec.template.spec.controlPlaneService.type",description="Type of the control plane Service"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type PodClusterTemplate struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the template.
	// +required
	Spec PodClusterTemplateSpec `json:"spec"`
}

// PodClusterTemplateList is a list of PodClusterTemplates.
//
// +kubebuilder:object:root=true
type PodClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the PodClusterTemplates.
	Items []PodClusterTemplate `json:"items"`
}
