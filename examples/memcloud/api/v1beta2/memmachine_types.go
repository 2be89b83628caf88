package v1beta2

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// MemMachineFinalizer is the finalizer memcloud's machine controller puts on a MemMachine before it creates
// the instance, so that deleting the MemMachine deletes the instance first.
const MemMachineFinalizer = GroupName + "/memmachine"

// InPlaceFields are the fields of a MemMachine's spec that memcloud changes on a running instance, without
// replacing it (the paths below spec): the admission webhook lets them change, the controller converges the
// instance to them, and memcloud's in-place update extension declares them to Cluster API (inplace.Config's
// Mutable). Every other field of a machine's spec is immutable, but providerID and failureDomain, which are
// set once.
var InPlaceFields = [][]string{{"flavor"}, {"tags"}}

// Limits of spec.tags, which the CRD schema and the admission webhook check.
const (
	// MaxTags is the number of user tags a machine may have.
	MaxTags = 16
	// MaxTagKeyLength is the length of a tag key, its prefix included.
	MaxTagKeyLength = 63
	// MaxTagValueLength is the length of a tag value.
	MaxTagValueLength = 255
	// ReservedTagDomain is the domain of the tag keys memcloud and capkit put on cloud resources themselves
	// (services.TagCluster, ensure.TagOwnershipKey, ensure.TagResourceKey, the cloud's
	// TagInstanceGroup): a user tag key cannot have it, or one of its subdomains, as prefix (IsReservedTagKey).
	ReservedTagDomain = "capkit.io"
)

// IsReservedTagKey reports whether key is one of memcloud's and capkit's own tag keys: its prefix (the part
// before "/") is ReservedTagDomain or a subdomain of it, such as "capkit.io/resource" or
// "memcloud.capkit.io/cluster".
func IsReservedTagKey(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	return ok && (prefix == ReservedTagDomain || strings.HasSuffix(prefix, "."+ReservedTagDomain))
}

// MemMachineSpec is the desired state of a MemMachine. The InPlaceFields (flavor, tags) may change at any time
// and are changed on the running instance; providerID and failureDomain may go from empty to a value; nothing
// else changes after creation.
type MemMachineSpec struct {
	// providerID is "memcloud://" followed by the instance ID. The controller sets it once the instance
	// exists; Cluster API copies it to the Machine and matches it with the Node.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ProviderID string `json:"providerID,omitempty"`

	// failureDomain is the failure domain to place the instance in; Cluster API copies it from the Machine.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// image is the boot image of the instance.
	// +optional
	// +kubebuilder:default="ubuntu-24.04"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Image string `json:"image,omitempty"`

	// flavor is the size of the instance: small, medium or large. A change resizes the running instance in
	// place (it restarts with the new flavor).
	// +optional
	// +kubebuilder:default=medium
	Flavor Flavor `json:"flavor,omitempty"`

	// tags are the user tags of the instance, besides the tags memcloud puts on it itself (its cluster and
	// ownership tags). A change is made on the running instance. Keys are qualified names of at most 63
	// characters: an optional DNS subdomain and "/", then alphanumerics, '-', '_' and '.', starting and ending
	// with an alphanumeric. Keys under capkit.io (capkit.io/..., memcloud.capkit.io/...) are memcloud's and
	// capkit's own: the admission webhook refuses them. Values are at most 255 characters.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 63 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$'))",message="tag keys must be qualified names of at most 63 characters"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 255)",message="tag values must be at most 255 characters"
	Tags map[string]string `json:"tags,omitempty"`

	// addressesFromPools are the IPAM pools the machine takes static addresses from: the machine's single
	// device (MachineDevice, "eth0") gets one address from each pool, in this order, through a Cluster API
	// IPAddressClaim per pool, owned by the MemMachine. The instance is created only once every claim is
	// bound, with the addresses attached; status.addresses reports them as InternalIP. A pool is listed at
	// most once. Immutable: a machine keeps its addresses for its lifetime.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:XValidation:rule="self.all(p, self.exists_one(q, q == p))",message="a pool must not be listed twice"
	AddressesFromPools []IPPoolRef `json:"addressesFromPools,omitempty"`
}

// MachineDevice is the name of a MemMachine's single network device, the device of its IPAM claims
// (spec.addressesFromPools).
const MachineDevice = "eth0"

// MaxAddressesFromPools is the number of pools a machine may take addresses from (spec.addressesFromPools).
const MaxAddressesFromPools = 4

// MemMachineStatus is the observed state of a MemMachine.
// +kubebuilder:validation:MinProperties=1
type MemMachineStatus struct {
	// initialization holds status.initialization.provisioned, which the controller sets to true once the
	// instance is running and spec.providerID and status.addresses are set.
	// +optional
	Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`

	// addresses are the addresses of the instance; Cluster API copies them to the Machine.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Addresses []contract.MachineAddress `json:"addresses,omitempty"`

	// failureDomain is the failure domain the instance was placed in.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	FailureDomain string `json:"failureDomain,omitempty"`

	// conditions are the observations of the MemMachine's state: Ready, InstanceReady and Paused.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// resources maps each cloud resource the controller created to its cloud ID, for example
	// "instance" → "i-1f2e3d4c". It is written as soon as a resource is created, so that it is never created
	// twice, and can be rebuilt from the resources' ownership tags.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	Resources map[string]string `json:"resources,omitempty"`

	// instanceState is the state of the instance as the cloud last reported it: pending, running, stopped
	// or failed.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	InstanceState string `json:"instanceState,omitempty"`

	// observedGeneration is the metadata.generation the controller last reconciled.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// MemMachine is one memcloud instance of a Cluster API Machine. It is the InfraMachine of contract v1beta2.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:path=memmachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1beta2"
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",description="Cluster this MemMachine belongs to"
// +kubebuilder:printcolumn:name="Machine",type="string",JSONPath=`.metadata.ownerReferences[?(@.kind=="Machine")].name`,description="Machine this MemMachine belongs to"
// +kubebuilder:printcolumn:name="ProviderID",type="string",JSONPath=".spec.providerID",description="Provider ID of the instance"
// +kubebuilder:printcolumn:name="Provisioned",type="boolean",JSONPath=".status.initialization.provisioned",description="Whether the instance is provisioned"
// +kubebuilder:printcolumn:name="State",type="string",JSONPath=".status.instanceState",description="Instance state"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since creation"
type MemMachine struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the MemMachine.
	// +optional
	// +kubebuilder:default={}
	Spec MemMachineSpec `json:"spec,omitempty"`

	// status is the observed state of the MemMachine.
	// +optional
	Status MemMachineStatus `json:"status,omitempty,omitzero"`
}

// MemMachineList is a list of MemMachines.
//
// +kubebuilder:object:root=true
type MemMachineList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the MemMachines.
	Items []MemMachine `json:"items"`
}
