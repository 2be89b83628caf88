package webhooks

import (
	"fmt"
	"net/netip"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// Prefix lengths memcloud accepts: a network from /8 to /28, a subnet from /16 to /28.
const (
	minNetworkBits = 8
	maxNetworkBits = 28
	minSubnetBits  = 16
	maxSubnetBits  = 28
	// defaultSubnetBits is the size of the default subnets when the network is large enough.
	defaultSubnetBits = 24
)

// parseCIDR parses a canonical IPv4 prefix with a length from minBits to maxBits, or returns a field error
// that names the field and the value.
func parseCIDR(path *field.Path, s string, minBits, maxBits int) (netip.Prefix, *field.Error) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil || !p.Addr().Is4():
		return netip.Prefix{}, field.Invalid(path, s, `must be an IPv4 CIDR such as "10.0.0.0/16"`)
	case p.Masked() != p:
		return netip.Prefix{}, field.Invalid(path, s, fmt.Sprintf("must not have host bits set (did you mean %q?)", p.Masked()))
	case p.Bits() < minBits || p.Bits() > maxBits:
		return netip.Prefix{}, field.Invalid(path, s, fmt.Sprintf("must have a prefix length from /%d to /%d", minBits, maxBits))
	}
	return p, nil
}

// DefaultSubnets returns the subnets the defaulting webhook gives a network without subnets: a "controlplane"
// and a "worker" subnet, the first two /24s of networkCIDR, or its two halves when the network is smaller
// than a /23. It returns nil when networkCIDR is not a valid network CIDR or is too small to split (/28);
// validation then reports the problem.
func DefaultSubnets(networkCIDR string) []v1beta2.SubnetSpec {
	p, ferr := parseCIDR(field.NewPath("cidr"), networkCIDR, minNetworkBits, maxNetworkBits)
	if ferr != nil {
		return nil
	}
	bits := max(defaultSubnetBits, p.Bits()+1)
	if bits > maxSubnetBits {
		return nil
	}
	first := netip.PrefixFrom(p.Addr(), bits)
	a := p.Addr().As4()
	base := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	next := base + 1<<(32-bits)
	second := netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(next >> 24), byte(next >> 16), byte(next >> 8), byte(next)}), bits)
	return []v1beta2.SubnetSpec{
		{Name: string(v1beta2.SubnetRoleControlPlane), CIDR: first.String(), Role: v1beta2.SubnetRoleControlPlane},
		{Name: string(v1beta2.SubnetRoleWorker), CIDR: second.String(), Role: v1beta2.SubnetRoleWorker},
	}
}
