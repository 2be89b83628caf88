package ipam

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/capkit/capkit/contract"
)

// The API of Cluster API's IPAM contract that a Claimer reads and writes (ipam.cluster.x-k8s.io/v1beta2, the
// storage version since Cluster API v1.11).
const (
	// Group is the API group of IPAddressClaim and IPAddress, and of the in-cluster provider's pools.
	Group = "ipam.cluster.x-k8s.io"
	// Version is the API version a Claimer uses.
	Version = "v1beta2"
	// ClaimKind is the kind of a claim: an infrastructure provider creates one per address it needs.
	ClaimKind = "IPAddressClaim"
	// AddressKind is the kind of an address: the IPAM provider creates one per claim, named like the claim.
	AddressKind = "IPAddress"
)

// Labels a Claimer puts on each claim, beside contract.ClusterNameLabel (cluster.x-k8s.io/cluster-name), which
// names the claim's Cluster like spec.clusterName.
const (
	// OwnerLabel names the owner (the InfraMachine) by name, shortened with a hash beyond 63 characters. It is
	// not a UID: clusterctl move gives the owner a new one. Unclaim lists claims by it.
	OwnerLabel = "ipam.capkit.io/owner"
)

// ClusterNameLabel names the claim's Cluster (cluster.x-k8s.io/cluster-name), like spec.clusterName.
//
// Deprecated: use contract.ClusterNameLabel.
//
//go:fix inline
const ClusterNameLabel = contract.ClusterNameLabel

// Bounds of a machine's requests.
const (
	// MaxRequests is the largest number of requests of one machine.
	MaxRequests = 16
	// MaxDeviceLength is the longest device name: Linux's interface names have at most 15 bytes.
	MaxDeviceLength = 15
	// maxNameLength is the longest object name: a DNS subdomain.
	maxNameLength = 253
	// maxLabelValueLength is the longest label value.
	maxLabelValueLength = 63
	// hashLength is the number of hex digits of the hash that shortens a long name.
	hashLength = 10
	// maxWaitingNames is the number of claim names a Result's message lists before it counts the rest.
	maxWaitingNames = 5
)

var (
	// ClaimGVK is the group, version and kind of the claims a Claimer writes.
	ClaimGVK = schema.GroupVersionKind{Group: Group, Version: Version, Kind: ClaimKind}
	// AddressGVK is the group, version and kind of the addresses a Claimer reads.
	AddressGVK = schema.GroupVersionKind{Group: Group, Version: Version, Kind: AddressKind}
)

var (
	// ErrInvalid is wrapped by the errors about a bad request, owner or cluster name, and about an IPAddress
	// whose values cannot be used: retrying does not help until the input or the IPAddress changes.
	ErrInvalid = errors.New("invalid")
	// ErrConflict is wrapped by the errors about a claim that exists under the name of one of the owner's
	// requests but is not the owner's claim for that request (another controller, another pool), and about an
	// IPAddress that is not the claim's. A Claimer never reuses or deletes such a claim.
	ErrConflict = errors.New("conflict")
)

// PoolRef names an IPAM pool, such as the in-cluster provider's InClusterIPPool, in the namespace of the object that
// names it: the spec.poolRef of the IPAddressClaims (ipam.cluster.x-k8s.io/v1beta2) made for that object. Its schema
// is that of Cluster API's IPPoolReference, so that a provider's CRD can embed it.
type PoolRef struct {
	// apiGroup is the API group of the pool's kind, a DNS subdomain such as "ipam.cluster.x-k8s.io", not its
	// group/version.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	APIGroup string `json:"apiGroup"`
	// kind is the pool's kind, such as "InClusterIPPool".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind string `json:"kind"`
	// name is the pool's name in the namespace of the object that names it, a DNS subdomain.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

// String returns the pool as Kind.APIGroup/Name.
func (p PoolRef) String() string { return p.Kind + "." + p.APIGroup + "/" + p.Name }

// Request asks for one address from Pool for a machine's Device (e.g. "eth0"); a device may take several
// addresses, one per pool.
type Request struct {
	// Device is the network interface that gets the address: a DNS label of at most MaxDeviceLength characters.
	Device string
	// Pool is the pool that allocates the address.
	Pool PoolRef
}

// Address is an allocated address.
type Address struct {
	// Device and Pool are those of the request.
	Device string
	Pool   PoolRef
	// Claim is the name of the IPAddressClaim (and of the IPAddress).
	Claim string
	// Address is the IPv4 or IPv6 address, without zone.
	Address netip.Addr
	// Prefix is the length of the network's prefix: 0..32 for IPv4, 0..128 for IPv6.
	Prefix int
	// Gateway is the network's gateway, of the same family as Address; it is invalid (!IsValid()) when the pool
	// gives none.
	Gateway netip.Addr
}

// Prefixed returns the address with its prefix, e.g. 10.0.0.10/24.
func (a Address) Prefixed() netip.Prefix { return netip.PrefixFrom(a.Address, a.Prefix) }

// ClaimName returns the name of the claim of a machine's request: <machine>-<device>-<index>, where index is the
// request's index (from 0) among the machine's requests for device. The name is a DNS subdomain of at most 253
// characters when machine is one and device a DNS label: a longer name keeps the end -<device>-<index> and the
// start of machine, and puts between them a hash of the whole name, so it stays deterministic and distinct.
//
// Within one machine, names are distinct (the index follows the last "-"); across machines they may collide
// (machine "a" device "b-c" and machine "a-b" device "c"): a Claimer checks the controller of a claim it finds
// and refuses another's (ErrConflict).
func ClaimName(machine, device string, index int) string {
	tail := "-" + device + "-" + strconv.Itoa(index)
	full := machine + tail
	if len(full) <= maxNameLength {
		return full
	}
	hash := shortHash(full)
	if budget := maxNameLength - len(tail) - 1 - hashLength; budget > 0 {
		return joinNonEmpty(trimToAlnum(machine[:budget]), hash) + tail
	}
	return joinNonEmpty(trimToAlnum(full[:maxNameLength-1-hashLength]), hash)
}

// ownerLabelValue returns the value of OwnerLabel for an owner's name: the name when it fits a label value,
// else its start and a hash.
func ownerLabelValue(name string) string {
	if len(name) <= maxLabelValueLength {
		return name
	}
	return joinNonEmpty(trimToAlnum(name[:maxLabelValueLength-1-hashLength]), shortHash(name))
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:hashLength]
}

// trimToAlnum drops the trailing characters that may not end a DNS name or label value ("-", ".").
func trimToAlnum(s string) string { return strings.TrimRight(s, "-.") }

func joinNonEmpty(head, hash string) string {
	if head == "" {
		return hash
	}
	return head + "-" + hash
}

// WaitingMessage returns the message of Claim's Result while it waits for the claims waiting, e.g. "waiting for
// IP addresses of claims m-eth0-0, m-eth1-0"; it lists at most five names and counts the others. It returns ""
// when waiting is empty.
func WaitingMessage(waiting []string) string {
	switch len(waiting) {
	case 0:
		return ""
	case 1:
		return "waiting for the IP address of claim " + waiting[0]
	}
	return "waiting for IP addresses of claims " + nameList(waiting)
}

// releasingMessage returns the message of Unclaim's Result while the claims left are being deleted, e.g.
// "waiting for claims m-eth0-0, m-eth1-0 to be deleted"; it lists at most five names and counts the others.
func releasingMessage(left []string) string {
	if len(left) == 1 {
		return "waiting for claim " + left[0] + " to be deleted"
	}
	return "waiting for claims " + nameList(left) + " to be deleted"
}

// nameList joins at most maxWaitingNames names with commas, and counts the others.
func nameList(names []string) string {
	more := ""
	if len(names) > maxWaitingNames {
		more = fmt.Sprintf(" and %d more", len(names)-maxWaitingNames)
		names = names[:maxWaitingNames]
	}
	return strings.Join(names, ", ") + more
}

// ClaimObject returns an empty IPAddressClaim of ClaimGVK, e.g. for a controller's Owns(ipam.ClaimObject()), so
// that a claim's address wakes its owner up.
func ClaimObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ClaimGVK)
	return u
}
