package v1beta2

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/capkit/capkit/ipam"
)

// Defaults of memcloud's API; the CRD schemas and the defaulting webhooks apply them.
const (
	// DefaultNetworkCIDR is the address range of a cluster network when spec.network.cidr is not set.
	DefaultNetworkCIDR = "10.0.0.0/16"
	// DefaultLoadBalancerPort is the port of the API server load balancer when spec.loadBalancer.port is not set.
	DefaultLoadBalancerPort int32 = 6443
	// DefaultImage is the boot image of a machine when spec.image is not set.
	DefaultImage = "ubuntu-24.04"
	// DefaultFlavor is the size of a machine when spec.flavor is not set.
	DefaultFlavor = FlavorMedium
)

// Condition types that memcloud's controllers set, besides the Paused condition of the conditions package.
const (
	// ReadyCondition summarizes the other conditions of a MemCluster or MemMachine.
	ReadyCondition = "Ready"
	// NetworkReadyCondition is true when a MemCluster's network exists.
	NetworkReadyCondition = "NetworkReady"
	// SubnetsReadyCondition is true when a MemCluster's control-plane and worker subnets exist.
	SubnetsReadyCondition = "SubnetsReady"
	// SecurityGroupReadyCondition is true when a MemCluster's security group exists.
	SecurityGroupReadyCondition = "SecurityGroupReady"
	// LoadBalancerReadyCondition is true when a MemCluster's API server load balancer exists and
	// spec.controlPlaneEndpoint points at it.
	LoadBalancerReadyCondition = "LoadBalancerReady"
	// InstanceReadyCondition is true when a MemMachine's instance is running.
	InstanceReadyCondition = "InstanceReady"
)

// NetworkSpec describes the network a MemCluster creates.
type NetworkSpec struct {
	// cidr is the IPv4 address range of the network, from /8 to /28, for example "10.0.0.0/16".
	// +optional
	// +kubebuilder:default="10.0.0.0/16"
	// +kubebuilder:validation:MinLength=9
	// +kubebuilder:validation:MaxLength=18
	// +kubebuilder:validation:Pattern=`^([0-9]{1,3}\.){3}[0-9]{1,3}/([0-9]|[12][0-9]|3[0-2])$`
	CIDR string `json:"cidr,omitempty"`

	// subnets are the subnets of the network. When empty, the defaulting webhook adds a "controlplane" and a
	// "worker" subnet, each a /24 (or half the network when it is smaller than a /23) at the start of cidr.
	// Subnets must lie inside cidr and must not overlap.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Subnets []SubnetSpec `json:"subnets,omitempty"`
}

// Subnet returns the first subnet with role r, and false when there is none.
func (n NetworkSpec) Subnet(r SubnetRole) (SubnetSpec, bool) {
	for _, s := range n.Subnets {
		if s.Role == r {
			return s, true
		}
	}
	return SubnetSpec{}, false
}

// SubnetRole says which machines a subnet holds.
// +kubebuilder:validation:Enum=controlplane;worker
type SubnetRole string

// Subnet roles.
const (
	// SubnetRoleControlPlane is the role of the subnet holding control plane machines.
	SubnetRoleControlPlane SubnetRole = "controlplane"
	// SubnetRoleWorker is the role of the subnet holding worker machines.
	SubnetRoleWorker SubnetRole = "worker"
)

// SubnetSpec is one subnet of a MemCluster's network.
type SubnetSpec struct {
	// name identifies the subnet in the list; it is a DNS label, for example "controlplane".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// cidr is the IPv4 address range of the subnet, from /16 to /28, inside the network's cidr.
	// +required
	// +kubebuilder:validation:MinLength=9
	// +kubebuilder:validation:MaxLength=18
	// +kubebuilder:validation:Pattern=`^([0-9]{1,3}\.){3}[0-9]{1,3}/([0-9]|[12][0-9]|3[0-2])$`
	CIDR string `json:"cidr"`

	// role says which machines the subnet holds: controlplane or worker.
	// +required
	Role SubnetRole `json:"role"`
}

// LoadBalancerSpec describes the load balancer in front of a MemCluster's API servers.
type LoadBalancerSpec struct {
	// port is the port the load balancer listens on; spec.controlPlaneEndpoint.port gets this value.
	// +optional
	// +kubebuilder:default=6443
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// AnyIPv4 is the CIDR of every IPv4 address: a rule with this source accepts connections from anywhere.
const AnyIPv4 = "0.0.0.0/0"

// SecurityGroupSpec describes the security group of a MemCluster's machines.
type SecurityGroupSpec struct {
	// ingressRules are the connections the security group accepts from outside the network; connections
	// from inside the network are always accepted. When unset, the defaulting webhook accepts the API
	// server's port (spec.loadBalancer.port) over TCP from anywhere (0.0.0.0/0). Listing rules replaces
	// that default: to restrict the API server to some addresses, list its port with their CIDR. No two
	// rules may be equal.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	IngressRules []IngressRule `json:"ingressRules,omitempty"`
}

// Protocol is the transport protocol of an ingress rule.
// +kubebuilder:validation:Enum=tcp;udp
type Protocol string

// Protocols of ingress rules.
const (
	// ProtocolTCP is TCP.
	ProtocolTCP Protocol = "tcp"
	// ProtocolUDP is UDP.
	ProtocolUDP Protocol = "udp"
)

// IngressRule accepts connections to one port from one IPv4 address range.
type IngressRule struct {
	// protocol is the transport protocol: tcp or udp.
	// +required
	Protocol Protocol `json:"protocol"`

	// port is the destination port, from 1 to 65535.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// cidr is the IPv4 address range the connections may come from, for example "203.0.113.0/24", or
	// "0.0.0.0/0" for anywhere. It must not have host bits set.
	// +required
	// +kubebuilder:validation:MinLength=9
	// +kubebuilder:validation:MaxLength=18
	// +kubebuilder:validation:Pattern=`^([0-9]{1,3}\.){3}[0-9]{1,3}/([0-9]|[12][0-9]|3[0-2])$`
	CIDR string `json:"cidr"`
}

// IPPoolRef names an IPAM pool, such as the in-cluster provider's InClusterIPPool, in the machine's
// namespace (or a cluster-scoped one, such as GlobalInClusterIPPool): the poolRef of the Cluster API
// IPAddressClaims a MemMachine makes. It is capkit's ipam.PoolRef, whose schema is Cluster API's
// IPPoolReference.
type IPPoolRef = ipam.PoolRef

// Flavor is the size of a machine.
// +kubebuilder:validation:Enum=small;medium;large
type Flavor string

// Machine flavors.
const (
	// FlavorSmall is the smallest machine, for workers of test clusters.
	FlavorSmall Flavor = "small"
	// FlavorMedium is the default machine size.
	FlavorMedium Flavor = "medium"
	// FlavorLarge is the largest machine.
	FlavorLarge Flavor = "large"
)

// Flavors lists the valid flavors, smallest first.
var Flavors = []Flavor{FlavorSmall, FlavorMedium, FlavorLarge}

// FlavorResources are the CPUs and memory of each flavor; memcloud's instances are linux/amd64.
var FlavorResources = map[Flavor]corev1.ResourceList{
	FlavorSmall:  {corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")},
	FlavorMedium: {corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")},
	FlavorLarge:  {corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi")},
}

// ProviderIDPrefix starts every memcloud provider ID: "memcloud://" followed by the instance ID.
const ProviderIDPrefix = "memcloud://"

// ErrInvalidProviderID is wrapped by the error of InstanceIDFromProviderID.
var ErrInvalidProviderID = errors.New("invalid provider ID")

// ProviderID returns the provider ID of the instance with ID instanceID, for example
// "memcloud://i-1f2e3d4c". Cluster API copies it to the Machine and matches it with the Node's spec.providerID.
func ProviderID(instanceID string) string { return ProviderIDPrefix + instanceID }

// InstanceIDFromProviderID returns the instance ID of a memcloud provider ID. It fails with an error wrapping
// ErrInvalidProviderID when providerID does not start with ProviderIDPrefix or when the rest is empty or holds
// a "/" or white space.
func InstanceIDFromProviderID(providerID string) (string, error) {
	id, ok := strings.CutPrefix(providerID, ProviderIDPrefix)
	switch {
	case !ok:
		return "", fmt.Errorf("cannot parse provider ID %q: want prefix %q: %w", providerID, ProviderIDPrefix, ErrInvalidProviderID)
	case id == "":
		return "", fmt.Errorf("cannot parse provider ID %q: no instance ID after %q: %w", providerID, ProviderIDPrefix, ErrInvalidProviderID)
	case strings.ContainsAny(id, "/ \t\r\n"):
		return "", fmt.Errorf("cannot parse provider ID %q: instance ID %q holds a slash or white space: %w", providerID, id, ErrInvalidProviderID)
	}
	return id, nil
}
