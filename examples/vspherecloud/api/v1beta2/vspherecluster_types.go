package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/ipam"
)

// VSphereClusterFinalizer is the finalizer vspherecloud's cluster controller puts on a VSphereCluster.
const VSphereClusterFinalizer = GroupName + "/vspherecluster"

// Keys of a credentials Secret: the VSphereCluster's (spec.credentialsSecretRef) or its identity's
// (VSphereClusterIdentity.spec.secretName).
const (
	// CredentialsUsername is the key of the user name that logs in to the vCenter.
	CredentialsUsername = "username"
	// CredentialsPassword is the key of its password.
	CredentialsPassword = "password"
)

// VSphereClusterSpec is the desired state of a VSphereCluster.
// +kubebuilder:validation:XValidation:rule="has(self.credentialsSecretRef) != has(self.identityRef)",message="exactly one of spec.credentialsSecretRef and spec.identityRef must be set"
type VSphereClusterSpec struct {
	// server is the vCenter: a host name, host:port, or an https URL of its SDK endpoint.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Server string `json:"server"`

	// thumbprint is the SHA-1 thumbprint of the vCenter's certificate ("AA:BB:..."), pinned instead of verifying
	// the certificate against trusted CAs, for a vCenter whose certificate no trusted CA signed.
	// +optional
	// +kubebuilder:validation:Pattern=`^([0-9A-Fa-f]{2}:){19}[0-9A-Fa-f]{2}$`
	Thumbprint string `json:"thumbprint,omitempty"`

	// datacenter is the datacenter the cluster's VMs live in, by name or inventory path.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Datacenter string `json:"datacenter"`

	// credentialsSecretRef names the Secret, in the VSphereCluster's namespace, whose "username" and "password" log
	// in to the vCenter. Exactly one of credentialsSecretRef and identityRef is set.
	// +optional
	CredentialsSecretRef SecretReference `json:"credentialsSecretRef,omitempty,omitzero"`

	// identityRef names the VSphereClusterIdentity (kind VSphereClusterIdentity) whose credentials log in to the
	// vCenter; it must allow the VSphereCluster's namespace. Exactly one of credentialsSecretRef and identityRef is
	// set.
	// +optional
	IdentityRef *identity.Ref `json:"identityRef,omitempty"`

	// controlPlaneEndpoint is the address of the cluster's API server. Give it, or give spec.virtualIP and the
	// controller sets it to an address of the virtual IP's pool. Once set, it never changes.
	// +optional
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`

	// virtualIP makes the control plane endpoint a virtual IP address claimed from an IPAM pool, when
	// spec.controlPlaneEndpoint is not given: the controller claims an address (an IPAddressClaim the VSphereCluster
	// owns, named <name>-vip-0), sets spec.controlPlaneEndpoint to it, and releases it when the VSphereCluster is
	// deleted. vspherecloud does not serve the address: the control plane does, e.g. kube-vip in the
	// KubeadmControlPlane's files, as with CAPV.
	// +optional
	VirtualIP *VirtualIP `json:"virtualIP,omitempty"`

	// failureDomains are the compute clusters of the datacenter that machines may be placed in, each a failure
	// domain of Cluster API: a Machine whose spec.failureDomain names one runs in the root resource pool of its
	// compute cluster. The controller reports the domains in status.failureDomains once it has found their
	// compute clusters, datastores and networks in the vCenter; it never creates them.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	FailureDomains []VSphereFailureDomain `json:"failureDomains,omitempty"`
}

// DefaultAPIServerPort is the port of a control plane endpoint made from a virtual IP, unless it gives one.
const DefaultAPIServerPort = 6443

// VirtualIP is a control plane endpoint from an IPAM pool.
type VirtualIP struct {
	// poolRef names the IPAM pool, in the VSphereCluster's namespace, that the address is claimed from, e.g. an
	// InClusterIPPool of the in-cluster IPAM provider.
	// +required
	PoolRef ipam.PoolRef `json:"poolRef"`

	// port is the API server's port on the address; 6443 when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// VSphereFailureDomain is a compute cluster of the datacenter as a failure domain, with the datastore and network
// its machines use instead of their own, where they differ.
type VSphereFailureDomain struct {
	// name is the failure domain's name, which Machines' spec.failureDomain gives.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`

	// computeCluster is the compute cluster (ClusterComputeResource), by name or inventory path, whose root
	// resource pool ("<computeCluster>/Resources") the domain's VMs run in, instead of the VSphereMachine's
	// spec.resourcePool.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ComputeCluster string `json:"computeCluster"`

	// datastore, when set, holds the files of the domain's VMs instead of the VSphereMachine's spec.datastore,
	// e.g. a datastore only the compute cluster's hosts reach.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Datastore string `json:"datastore,omitempty"`

	// network, when set, is the port group of the domain's VMs instead of the VSphereMachine's spec.network.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Network string `json:"network,omitempty"`

	// controlPlane says whether control plane machines may be placed in the domain; unset means they may.
	// +optional
	ControlPlane *bool `json:"controlPlane,omitempty"`
}

// FailureDomain returns the failure domain named name, and whether spec has one.
func (s *VSphereClusterSpec) FailureDomain(name string) (VSphereFailureDomain, bool) {
	for _, fd := range s.FailureDomains {
		if fd.Name == name {
			return fd, true
		}
	}
	return VSphereFailureDomain{}, false
}

// SecretReference names a Secret in the namespace of the object that holds the reference.
type SecretReference struct {
	// name is the Secret's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// VSphereClusterStatus is the observed state of a VSphereCluster.
// +kubebuilder:validation:MinProperties=1
type VSphereClusterStatus struct {
	// initialization holds status.initialization.provisioned, which the controller sets to true once it has
	// logged in to the vCenter and spec.controlPlaneEndpoint is set.
	// +optional
	Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`

	// conditions are the observations of the VSphereCluster's state: Ready, VCenterReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// failureDomains are spec.failureDomains whose inventory the controller found, with the attributes
	// computeCluster, and datastore and network when set.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	FailureDomains []contract.FailureDomain `json:"failureDomains,omitempty"`
}

// VSphereCluster is the infrastructure of a Cluster API cluster on a vCenter: where its VMs live and how to log in.
// It is the InfraCluster of contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=vsphereclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this VSphereCluster belongs to"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the infrastructure is provisioned"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Ready condition"
// +kubebuilder:printcolumn:name="Server",type="string",JSONPath=".spec.server",description="vCenter"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type VSphereCluster struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the VSphereCluster.
	// +required
	Spec VSphereClusterSpec `json:"spec"`

	// status is the observed state of the VSphereCluster.
	// +optional
	Status VSphereClusterStatus `json:"status,omitempty,omitzero"`
}

// VSphereClusterList is a list of VSphereClusters.
//
// +kubebuilder:object:root=true
type VSphereClusterList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the VSphereClusters.
	Items []VSphereCluster `json:"items"`
}
