package cloud

import (
	"context"
	"fmt"
	"net/netip"
)

// CreateNetwork creates a network, or returns the one created earlier with the same
// IdempotencyToken (see Cloud).
func (c *Cloud) CreateNetwork(ctx context.Context, spec NetworkSpec) (*Network, error) {
	return as[Network](c.create(ctx, createReq{
		kind: KindNetwork, name: spec.Name, tags: spec.Tags, token: spec.IdempotencyToken,
		fingerprint: fingerprint(spec.Name, formatTags(spec.Tags), spec.CIDR),
		build: func(m Meta, _ string) (*record, error) {
			p, err := parseCIDR("cidr", spec.CIDR, 8, 28)
			if err != nil {
				return nil, err
			}
			return &record{obj: &Network{Meta: m, CIDR: p.String()}, prefix: p}, nil
		},
	}))
}

// GetNetwork returns the network with the given ID, or an error wrapping ErrNotFound.
func (c *Cloud) GetNetwork(ctx context.Context, id string) (*Network, error) {
	return as[Network](c.get(ctx, KindNetwork, id))
}

// DeleteNetwork deletes a network. It fails with ErrDependencyViolation while subnets,
// security groups or load balancers remain in it, and with ErrNotFound when it is gone.
func (c *Cloud) DeleteNetwork(ctx context.Context, id string) error {
	return c.delete(ctx, KindNetwork, id)
}

// FindNetworks returns the networks that have all the given tags (at least one), in creation
// order. Recently created networks may be missing: see WithSearchLag and FaultConfig.SearchLag.
func (c *Cloud) FindNetworks(ctx context.Context, tags map[string]string) ([]Network, error) {
	return asList[Network](c.find(ctx, KindNetwork, tags))
}

// CreateSubnet creates a subnet in a network, or returns the one created earlier with the same
// IdempotencyToken (see Cloud).
func (c *Cloud) CreateSubnet(ctx context.Context, spec SubnetSpec) (*Subnet, error) {
	return as[Subnet](c.create(ctx, createReq{
		kind: KindSubnet, name: spec.Name, tags: spec.Tags, token: spec.IdempotencyToken,
		fingerprint: fingerprint(spec.Name, formatTags(spec.Tags), spec.NetworkID, spec.CIDR),
		build: func(m Meta, account string) (*record, error) {
			p, err := parseCIDR("cidr", spec.CIDR, 16, 28)
			if err != nil {
				return nil, err
			}
			network, err := c.parentLocked(account, "networkID", KindNetwork, spec.NetworkID)
			if err != nil {
				return nil, err
			}
			if p.Bits() < network.prefix.Bits() || !network.prefix.Contains(p.Addr()) {
				return nil, invalid("cidr", spec.CIDR, fmt.Sprintf("is not inside cidr %q of network %q", network.prefix, spec.NetworkID))
			}
			if r := c.overlappingLocked(spec.NetworkID, p); r != nil {
				return nil, invalid("cidr", spec.CIDR, fmt.Sprintf("overlaps cidr %q of subnet %q", r.prefix, r.id()))
			}
			return &record{
				obj:    &Subnet{Meta: m, NetworkID: spec.NetworkID, CIDR: p.String()},
				parent: spec.NetworkID, prefix: p, addrs: newAddrPool(p),
			}, nil
		},
	}))
}

// overlappingLocked returns the oldest subnet of the network that overlaps p, or nil.
func (c *Cloud) overlappingLocked(networkID string, p netip.Prefix) *record {
	var found *record
	for r := range c.index.referrers[networkID] {
		if r.kind == KindSubnet && r.parent == networkID && r.prefix.Overlaps(p) && (found == nil || r.seq < found.seq) {
			found = r
		}
	}
	return found
}

// GetSubnet returns the subnet with the given ID, or an error wrapping ErrNotFound.
func (c *Cloud) GetSubnet(ctx context.Context, id string) (*Subnet, error) {
	return as[Subnet](c.get(ctx, KindSubnet, id))
}

// DeleteSubnet deletes a subnet. It fails with ErrDependencyViolation while instances or
// instance groups remain in it, and with ErrNotFound when it is gone.
func (c *Cloud) DeleteSubnet(ctx context.Context, id string) error {
	return c.delete(ctx, KindSubnet, id)
}

// FindSubnets returns the subnets that have all the given tags (at least one), in creation
// order. Recently created subnets may be missing: see WithSearchLag and FaultConfig.SearchLag.
func (c *Cloud) FindSubnets(ctx context.Context, tags map[string]string) ([]Subnet, error) {
	return asList[Subnet](c.find(ctx, KindSubnet, tags))
}

// CreateSecurityGroup creates a security group in a network, or returns the one created
// earlier with the same IdempotencyToken (see Cloud).
func (c *Cloud) CreateSecurityGroup(ctx context.Context, spec SecurityGroupSpec) (*SecurityGroup, error) {
	return as[SecurityGroup](c.create(ctx, createReq{
		kind: KindSecurityGroup, name: spec.Name, tags: spec.Tags, token: spec.IdempotencyToken,
		fingerprint: fingerprint(spec.Name, formatTags(spec.Tags), spec.NetworkID, spec.Description, formatRules(spec.Ingress)),
		build: func(m Meta, account string) (*record, error) {
			if len(spec.Description) > maxNameLen {
				return nil, invalid("description", spec.Description, fmt.Sprintf("must be at most %d bytes", maxNameLen))
			}
			if err := validRules(spec.Ingress); err != nil {
				return nil, err
			}
			if _, err := c.parentLocked(account, "networkID", KindNetwork, spec.NetworkID); err != nil {
				return nil, err
			}
			sg := &SecurityGroup{Meta: m, NetworkID: spec.NetworkID, Description: spec.Description, Ingress: spec.Ingress}
			return &record{obj: sg.clone(), parent: spec.NetworkID}, nil
		},
	}))
}

// GetSecurityGroup returns the security group with the given ID, or an error wrapping
// ErrNotFound.
func (c *Cloud) GetSecurityGroup(ctx context.Context, id string) (*SecurityGroup, error) {
	return as[SecurityGroup](c.get(ctx, KindSecurityGroup, id))
}

// DeleteSecurityGroup deletes a security group. It fails with ErrDependencyViolation while
// instances or instance groups use it, and with ErrNotFound when it is gone.
func (c *Cloud) DeleteSecurityGroup(ctx context.Context, id string) error {
	return c.delete(ctx, KindSecurityGroup, id)
}

// FindSecurityGroups returns the security groups that have all the given tags (at least one),
// in creation order. Recently created groups may be missing: see WithSearchLag and FaultConfig.SearchLag.
func (c *Cloud) FindSecurityGroups(ctx context.Context, tags map[string]string) ([]SecurityGroup, error) {
	return asList[SecurityGroup](c.find(ctx, KindSecurityGroup, tags))
}
