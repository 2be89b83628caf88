package cloud

import (
	"maps"
	"slices"
	"time"
)

// DefaultLoadBalancerPort is the port of a load balancer created without one: the Kubernetes
// API server port.
const DefaultLoadBalancerPort = 6443

// DNSSuffix is the domain of load balancer host names: "<id>.memcloud.local".
const DNSSuffix = "memcloud.local"

// Meta holds the fields every resource has.
type Meta struct {
	// ID is the cloud-assigned ID: the kind's prefix (see Kind.Prefix) and 8 hex digits.
	ID string
	// Name is the name given at creation. Names need not be unique.
	Name string
	// Tags are the key/value tags given at creation; never nil in returned resources.
	Tags map[string]string
	// CreatedAt is the creation time, from the clock set with WithClock.
	CreatedAt time.Time
}

func (m *Meta) meta() *Meta { return m }

func (m Meta) cloneMeta() Meta {
	m.Tags = cloneTags(m.Tags)
	return m
}

func cloneTags(tags map[string]string) map[string]string {
	if tags == nil {
		return map[string]string{}
	}
	return maps.Clone(tags)
}

// object is implemented by the pointer of every resource type.
type object interface {
	meta() *Meta
	clone() object
}

// Network is an isolated IPv4 address space.
type Network struct {
	Meta
	// CIDR is the network's address range in canonical form, for example "10.0.0.0/16".
	CIDR string
}

func (n *Network) clone() object {
	c := *n
	c.Meta = n.cloneMeta()
	return &c
}

// NetworkSpec is the request to create a network.
type NetworkSpec struct {
	// Name is required.
	Name string
	// CIDR is a canonical IPv4 prefix from /8 to /28, for example "10.0.0.0/16".
	CIDR string
	// Tags are optional; at most 50, keys of 1 to 128 bytes, values up to 256 bytes.
	Tags map[string]string
	// IdempotencyToken, when not empty, makes the request idempotent: see Cloud.
	IdempotencyToken string
}

// Subnet is a range of a network's addresses.
type Subnet struct {
	Meta
	// NetworkID is the ID of the network the subnet belongs to.
	NetworkID string
	// CIDR is the subnet's address range, inside the network's.
	CIDR string
}

func (s *Subnet) clone() object {
	c := *s
	c.Meta = s.cloneMeta()
	return &c
}

// SubnetSpec is the request to create a subnet.
type SubnetSpec struct {
	// Name is required.
	Name string
	// NetworkID is the ID of an existing network.
	NetworkID string
	// CIDR is a canonical IPv4 prefix from /16 to /28 inside the network's CIDR that overlaps
	// no other subnet of the network.
	CIDR string
	// Tags are optional; see NetworkSpec.Tags.
	Tags map[string]string
	// IdempotencyToken, when not empty, makes the request idempotent: see Cloud.
	IdempotencyToken string
}

// Rule is an ingress rule of a security group.
type Rule struct {
	// Protocol is "tcp", "udp", "icmp" or "all".
	Protocol string
	// Port is the destination port, 1 to 65535, for tcp and udp; 0 for icmp and all.
	Port int
	// Source is the IPv4 CIDR traffic may come from, for example "0.0.0.0/0".
	Source string
}

// SecurityGroup is a set of ingress rules in a network.
type SecurityGroup struct {
	Meta
	// NetworkID is the ID of the network the group belongs to.
	NetworkID string
	// Description is free text.
	Description string
	// Ingress are the rules allowing inbound traffic.
	Ingress []Rule
}

func (g *SecurityGroup) clone() object {
	c := *g
	c.Meta = g.cloneMeta()
	c.Ingress = slices.Clone(g.Ingress)
	return &c
}

// SecurityGroupSpec is the request to create a security group.
type SecurityGroupSpec struct {
	// Name is required.
	Name string
	// NetworkID is the ID of an existing network.
	NetworkID string
	// Description is optional free text, up to 255 bytes.
	Description string
	// Ingress are optional rules, each validated.
	Ingress []Rule
	// Tags are optional; see NetworkSpec.Tags.
	Tags map[string]string
	// IdempotencyToken, when not empty, makes the request idempotent: see Cloud.
	IdempotencyToken string
}

// LoadBalancer is a TCP load balancer reachable at Host:Port.
type LoadBalancer struct {
	Meta
	// NetworkID is the ID of the network the load balancer serves.
	NetworkID string
	// Host is the load balancer's DNS name, "<id>.memcloud.local".
	Host string
	// Port is the listener port.
	Port int
	// Targets are the IDs of the registered instances, sorted.
	Targets []string
}

func (l *LoadBalancer) clone() object {
	c := *l
	c.Meta = l.cloneMeta()
	c.Targets = slices.Clone(l.Targets)
	return &c
}

// LoadBalancerSpec is the request to create a load balancer.
type LoadBalancerSpec struct {
	// Name is required.
	Name string
	// NetworkID is the ID of an existing network.
	NetworkID string
	// Port is the listener port, 1 to 65535; 0 means DefaultLoadBalancerPort.
	Port int
	// Tags are optional; see NetworkSpec.Tags.
	Tags map[string]string
	// IdempotencyToken, when not empty, makes the request idempotent: see Cloud.
	IdempotencyToken string
}

// InstanceState is the lifecycle state of an instance.
type InstanceState string

// Instance states.
const (
	// InstancePending is the state of a booting instance (see WithPendingGets), or of a running
	// instance restarting with a new flavor (see Cloud.ResizeInstance).
	InstancePending InstanceState = "pending"
	// InstanceRunning is the state of a booted instance.
	InstanceRunning InstanceState = "running"
	// InstanceStopped is the state of a stopped instance; only SetInstanceState sets it (a resize
	// stops and starts a running instance without reporting it stopped).
	InstanceStopped InstanceState = "stopped"
	// InstanceFailed is the state of an instance that failed to boot; only SetInstanceState sets it.
	InstanceFailed InstanceState = "failed"
)

// Instance is a virtual machine. Its user data is not part of it, as in real clouds; tests read
// it with Cloud.InstanceUserData.
type Instance struct {
	Meta
	// SubnetID is the ID of the instance's subnet.
	SubnetID string
	// NetworkID is the ID of the subnet's network.
	NetworkID string
	// PrivateIP is the instance's address, the lowest free one of the subnet (the first four
	// addresses and the last one are reserved).
	PrivateIP string
	// StaticIPs are the addresses attached to the instance besides PrivateIP, as created with
	// InstanceSpec.StaticIPs (in canonical form, in the order given); nil when none. No other
	// instance of the cloud has them while the instance lives.
	StaticIPs []string
	// Image is the boot image.
	Image string
	// Flavor is the size of the machine, one of the cloud's flavors (WithFlavors). It changes with
	// Cloud.ResizeInstance.
	Flavor string
	// ResizingTo is the flavor a resize in progress gives the instance (Cloud.ResizeInstance); the
	// instance is InstancePending meanwhile. It is empty when no resize is in progress.
	ResizingTo string
	// SecurityGroupIDs are the IDs of the security groups attached to the instance.
	SecurityGroupIDs []string
	// State is the lifecycle state.
	State InstanceState
}

func (i *Instance) clone() object {
	c := *i
	c.Meta = i.cloneMeta()
	c.SecurityGroupIDs = slices.Clone(i.SecurityGroupIDs)
	c.StaticIPs = slices.Clone(i.StaticIPs)
	return &c
}

// InstanceSpec is the request to create an instance.
type InstanceSpec struct {
	// Name is required.
	Name string
	// SubnetID is the ID of an existing subnet with a free address.
	SubnetID string
	// Image is required.
	Image string
	// Flavor is required, one of the cloud's flavors (WithFlavors).
	Flavor string
	// SecurityGroupIDs are optional IDs of existing security groups of the subnet's network.
	SecurityGroupIDs []string
	// StaticIPs are optional addresses to attach to the instance besides the private IP of its
	// subnet, for example addresses an IPAM pool gave out; at most MaxStaticIPs. Each must parse
	// as an IP address (IPv4 or IPv6, no zone), be listed once and not be attached to another
	// live instance of the cloud, in any account: static addresses are unique in the whole cloud,
	// whatever the network (private IPs are unique per subnet only). They are released when the
	// instance is deleted.
	StaticIPs []string
	// UserData is the bootstrap data, stored as given, at most WithMaxUserDataSize bytes. It
	// never appears in errors.
	UserData []byte
	// Tags are optional; see NetworkSpec.Tags.
	Tags map[string]string
	// IdempotencyToken, when not empty, makes the request idempotent: see Cloud.
	IdempotencyToken string
}

// MaxStaticIPs is the number of static addresses an instance may have (InstanceSpec.StaticIPs).
const MaxStaticIPs = 8

// TagInstanceGroup is the tag every instance of an instance group carries, with the group's ID
// as its value. The instances carry every tag of their group too.
const TagInstanceGroup = "memcloud.capkit.io/instance-group"

// MaxInstanceGroupSize is the largest size of an instance group.
const MaxInstanceGroupSize = 1000

// GroupInstance is an instance of an instance group as listed by the group. The instance itself
// is an Instance resource: read the rest of it with Cloud.GetInstance.
type GroupInstance struct {
	// ID is the instance's ID.
	ID string
	// PrivateIP is the instance's address.
	PrivateIP string
	// State is the instance's lifecycle state.
	State InstanceState
}

// InstanceGroup is a group of identical instances in a subnet (an auto scaling group). Its user
// data is not part of it; tests read it with Cloud.InstanceGroupUserData.
type InstanceGroup struct {
	Meta
	// SubnetID is the ID of the subnet the group's instances run in.
	SubnetID string
	// NetworkID is the ID of the subnet's network.
	NetworkID string
	// Image is the boot image of the group's instances.
	Image string
	// Flavor is the size of the group's machines.
	Flavor string
	// SecurityGroupIDs are the IDs of the security groups attached to the group's instances.
	SecurityGroupIDs []string
	// Size is the number of instances the group should have, set at creation and by
	// Cloud.ScaleInstanceGroup. Instances deleted directly leave the group without changing it,
	// so len(Instances) may be lower until the next scale.
	Size int
	// Instances are the group's live instances, oldest first; never nil.
	Instances []GroupInstance
}

func (g *InstanceGroup) clone() object {
	c := *g
	c.Meta = g.cloneMeta()
	c.SecurityGroupIDs = slices.Clone(g.SecurityGroupIDs)
	c.Instances = slices.Clone(g.Instances)
	return &c
}

// InstanceGroupSpec is the request to create an instance group.
type InstanceGroupSpec struct {
	// Name is required. The group's instances are named "<name>-<n>", n counting from 0 the
	// instances the group has started.
	Name string
	// SubnetID is the ID of an existing subnet with a free address for each instance.
	SubnetID string
	// Image is required.
	Image string
	// Flavor is required.
	Flavor string
	// SecurityGroupIDs are optional IDs of existing security groups of the subnet's network.
	SecurityGroupIDs []string
	// UserData is the bootstrap data of the group's instances, at most WithMaxUserDataSize
	// bytes; Cloud.UpdateInstanceGroupUserData replaces it. It never appears in errors.
	UserData []byte
	// Size is the initial number of instances, 0 to MaxInstanceGroupSize.
	Size int
	// Tags are optional; see NetworkSpec.Tags. The group's instances carry them too.
	Tags map[string]string
	// IdempotencyToken, when not empty, makes the request idempotent: see Cloud.
	IdempotencyToken string
}

// Resource is the kind-independent view of any resource, used by inspection and reports.
type Resource struct {
	// Kind is the resource's kind.
	Kind Kind
	Meta
	// ParentID is the ID of the network (subnets, security groups, load balancers) or the subnet
	// (instance groups, instances) the resource lives in; "" for networks.
	ParentID string
	// Account is the name of the account that owns the resource (see Cloud.CreateAccount); ""
	// for a resource created without credentials.
	Account string
}
