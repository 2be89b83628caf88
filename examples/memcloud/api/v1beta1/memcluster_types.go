package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// MemClusterSpec is the desired state of a MemCluster.
type MemClusterSpec struct {
	// controlPlaneEndpoint is the address of the cluster's API server. The controller sets it to the load
	// balancer's host and port; set it yourself only to use an endpoint memcloud does not manage. Once set,
	// it cannot change.
	// +optional
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// network is the network, and its subnets, that the cluster's machines run in. It cannot change after
	// creation.
	// +optional
	// +kubebuilder:default={}
	Network v1beta2.NetworkSpec `json:"network,omitempty"`

	// loadBalancer is the load balancer in front of the API servers. Its port cannot change after creation.
	// +optional
	// +kubebuilder:default={}
	LoadBalancer v1beta2.LoadBalancerSpec `json:"loadBalancer,omitempty"`

	// securityGroup is the security group of the cluster's machines: what it lets in from outside the
	// network. Unlike the network, it may change: the controller updates the security group in place.
	// +optional
	// +kubebuilder:default={}
	SecurityGroup v1beta2.SecurityGroupSpec `json:"securityGroup,omitempty"`

	// failureDomains are the names of the failure domains the cluster offers; the controller copies them
	// to status.failureDomains, all suitable for control plane machines. Empty means no failure domains.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	FailureDomains []string `json:"failureDomains,omitempty"`
}

// MemClusterStatus is the observed state of a MemCluster.
type MemClusterStatus struct {
	// ready is true once the network, security group and load balancer exist and spec.controlPlaneEndpoint
	// is set.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// failureDomains are the failure domains machines may be placed in, from spec.failureDomains, keyed by
	// name.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	FailureDomains map[string]conversion.V1Beta1FailureDomain `json:"failureDomains,omitempty"`

	// conditions are the observations of the MemCluster's state: Ready, NetworkReady, SubnetsReady,
	// SecurityGroupReady, LoadBalancerReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []conversion.V1Beta1Condition `json:"conditions,omitempty"`

	// failureReason is a terminal problem's reason, for example InvalidConfiguration.
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
	// "network" → "net-1f2e3d4c".
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Resources map[string]string `json:"resources,omitempty"`

	// observedGeneration is the metadata.generation the controller last reconciled.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// MemCluster is the infrastructure of a Cluster API cluster on memcloud: a network with subnets, a security
// group and a load balancer in front of the API servers. It is the InfraCluster of contract v1beta1.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=memclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta1=v1beta1"
// +kubebuilder:deprecatedversion:warning="infrastructure.memcloud.capkit.io/v1beta1 is deprecated; use v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this MemCluster belongs to"
// +kubebuilder:printcolumn:name="Ready",type="boolean",JSONPath=".status.ready",description="Whether the infrastructure is ready"
// +kubebuilder:printcolumn:name="Endpoint",type="string",JSONPath=".spec.controlPlaneEndpoint.host",description="API server endpoint host"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type MemCluster struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MemCluster.
	// +optional
	// +kubebuilder:default={}
	Spec MemClusterSpec `json:"spec,omitempty"`

	// status is the observed state of the MemCluster.
	// +optional
	Status MemClusterStatus `json:"status,omitempty"`
}

// MemClusterList is a list of MemClusters.
//
// +kubebuilder:object:root=true
type MemClusterList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the MemClusters.
	Items []MemCluster `json:"items"`
}
