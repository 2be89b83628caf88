package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
)

// MemClusterFinalizer is the finalizer memcloud's cluster controller puts on a MemCluster before it creates
// any cloud resource, so that deleting the MemCluster deletes them first.
const MemClusterFinalizer = GroupName + "/memcluster"

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
	Network NetworkSpec `json:"network,omitempty"`

	// loadBalancer is the load balancer in front of the API servers. Its port cannot change after creation.
	// +optional
	// +kubebuilder:default={}
	LoadBalancer LoadBalancerSpec `json:"loadBalancer,omitempty"`

	// securityGroup is the security group of the cluster's machines: what it lets in from outside the
	// network. Unlike the network, it may change: the controller updates the security group in place.
	// +optional
	// +kubebuilder:default={}
	SecurityGroup SecurityGroupSpec `json:"securityGroup,omitempty"`

	// failureDomains are the names of the failure domains the cluster offers; the controller copies them
	// to status.failureDomains, all suitable for control plane machines. Empty means no failure domains.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	FailureDomains []string `json:"failureDomains,omitempty"`

	// identityRef names the MemClusterIdentity whose memcloud account the cluster's resources live in. Unset
	// means memcloud's default credentials (a cloud without accounts). It cannot change after creation: the
	// resources of one account are invisible to another.
	// +optional
	IdentityRef *identity.Ref `json:"identityRef,omitempty"`
}

// MemClusterStatus is the observed state of a MemCluster.
// +kubebuilder:validation:MinProperties=1
type MemClusterStatus struct {
	// initialization holds status.initialization.provisioned, which the controller sets to true once the
	// network, security group and load balancer exist and spec.controlPlaneEndpoint is set.
	// +optional
	Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`

	// conditions are the observations of the MemCluster's state: Ready, NetworkReady, SubnetsReady,
	// SecurityGroupReady, LoadBalancerReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// failureDomains are the failure domains machines may be placed in, from spec.failureDomains.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	FailureDomains []contract.FailureDomain `json:"failureDomains,omitempty"`

	// resources maps each cloud resource the controller created to its cloud ID, for example
	// "network" → "net-1f2e3d4c". It is written as soon as a resource is created, so that it is never created
	// twice, and can be rebuilt from the resources' ownership tags.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Resources map[string]string `json:"resources,omitempty"`

	// observedGeneration is the metadata.generation the controller last reconciled.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// MemCluster is the infrastructure of a Cluster API cluster on memcloud: a network with subnets, a security
// group and a load balancer in front of the API servers. It is the InfraCluster of contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=memclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this MemCluster belongs to"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the infrastructure is provisioned"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Ready condition"
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
	Status MemClusterStatus `json:"status,omitempty,omitzero"`
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
