package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// QuuxClusterFinalizer is the finalizer the cluster controller puts on a QuuxCluster before it creates any
// cloud resource, so that deleting the QuuxCluster deletes them first.
const QuuxClusterFinalizer = GroupName + "/quuxcluster"

// DefaultLoadBalancerPort is the default of spec.loadBalancerPort.
const DefaultLoadBalancerPort = 6443

// QuuxClusterSpec is the desired state of a QuuxCluster.
type QuuxClusterSpec struct {
	// controlPlaneEndpoint is the address of the cluster's API server. The controller sets it to the load
	// balancer's host and port. Once set, it cannot change.
	// +optional
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// loadBalancerPort is the port of the API server load balancer. It cannot change after creation.
	// +optional
	// +kubebuilder:default=6443
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	LoadBalancerPort int32 `json:"loadBalancerPort,omitempty"`
}

// QuuxClusterStatus is the observed state of a QuuxCluster.
// +kubebuilder:validation:MinProperties=1
type QuuxClusterStatus struct {
	// initialization holds status.initialization.provisioned, which the controller sets to true once the
	// load balancer exists and spec.controlPlaneEndpoint is set.
	// +optional
	Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`

	// conditions are the observations of the QuuxCluster's state: Ready, LoadBalancerReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// resources maps each cloud resource the controller created to its cloud ID, written as soon as the
	// cloud returns it, so that a resource is never created twice.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Resources map[string]string `json:"resources,omitempty"`
}

// QuuxCluster is the infrastructure of a Cluster API cluster: a load balancer in front of the API servers.
// It is the InfraCluster of contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=quuxclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this QuuxCluster belongs to"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the infrastructure is provisioned"
// +kubebuilder:printcolumn:name="Endpoint",type="string",JSONPath=".spec.controlPlaneEndpoint.host",description="API server endpoint host"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type QuuxCluster struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the QuuxCluster.
	// +optional
	// +kubebuilder:default={}
	Spec QuuxClusterSpec `json:"spec,omitempty"`

	// status is the observed state of the QuuxCluster.
	// +optional
	Status QuuxClusterStatus `json:"status,omitempty,omitzero"`
}

// QuuxClusterList is a list of QuuxClusters.
//
// +kubebuilder:object:root=true
type QuuxClusterList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the QuuxClusters.
	Items []QuuxCluster `json:"items"`
}
