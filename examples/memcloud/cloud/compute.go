package cloud

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// CreateLoadBalancer creates a load balancer in a network, or returns the one created earlier
// with the same IdempotencyToken (see Cloud). Its Host is "<id>.memcloud.local".
func (c *Cloud) CreateLoadBalancer(ctx context.Context, spec LoadBalancerSpec) (*LoadBalancer, error) {
	port := spec.Port
	if port == 0 {
		port = DefaultLoadBalancerPort
	}
	return as[LoadBalancer](c.create(ctx, createReq{
		kind: KindLoadBalancer, name: spec.Name, tags: spec.Tags, token: spec.IdempotencyToken,
		fingerprint: fingerprint(spec.Name, formatTags(spec.Tags), spec.NetworkID, strconv.Itoa(port)),
		build: func(m Meta, account string) (*record, error) {
			if port < 1 || port > 65535 {
				return nil, invalid("port", spec.Port, "must be from 1 to 65535, or 0 for the default")
			}
			if _, err := c.parentLocked(account, "networkID", KindNetwork, spec.NetworkID); err != nil {
				return nil, err
			}
			lb := &LoadBalancer{Meta: m, NetworkID: spec.NetworkID, Host: m.ID + "." + DNSSuffix, Port: port, Targets: []string{}}
			return &record{obj: lb, parent: spec.NetworkID}, nil
		},
	}))
}

// GetLoadBalancer returns the load balancer with the given ID, or an error wrapping
// ErrNotFound.
func (c *Cloud) GetLoadBalancer(ctx context.Context, id string) (*LoadBalancer, error) {
	return as[LoadBalancer](c.get(ctx, KindLoadBalancer, id))
}

// DeleteLoadBalancer deletes a load balancer, registered targets included. It fails with
// ErrNotFound when it is gone.
func (c *Cloud) DeleteLoadBalancer(ctx context.Context, id string) error {
	return c.delete(ctx, KindLoadBalancer, id)
}

// FindLoadBalancers returns the load balancers that have all the given tags (at least one), in
// creation order. Recently created ones may be missing: see WithSearchLag and FaultConfig.SearchLag.
func (c *Cloud) FindLoadBalancers(ctx context.Context, tags map[string]string) ([]LoadBalancer, error) {
	return asList[LoadBalancer](c.find(ctx, KindLoadBalancer, tags))
}

// RegisterTarget adds an instance of the load balancer's network to its targets. Registering
// a registered instance does nothing and succeeds.
func (c *Cloud) RegisterTarget(ctx context.Context, loadBalancerID, instanceID string) error {
	if err := c.changeTargets(ctx, VerbRegister, loadBalancerID, instanceID); err != nil {
		return fmt.Errorf("cannot register instance %q with load balancer %q: %w", instanceID, loadBalancerID, err)
	}
	return nil
}

// DeregisterTarget removes an instance from the load balancer's targets. Deregistering an
// instance that is not registered, or no longer exists, does nothing and succeeds; an unknown
// load balancer is ErrNotFound. Deleting an instance deregisters it everywhere.
func (c *Cloud) DeregisterTarget(ctx context.Context, loadBalancerID, instanceID string) error {
	if err := c.changeTargets(ctx, VerbDeregister, loadBalancerID, instanceID); err != nil {
		return fmt.Errorf("cannot deregister instance %q from load balancer %q: %w", instanceID, loadBalancerID, err)
	}
	return nil
}

func (c *Cloud) changeTargets(ctx context.Context, verb Verb, lbID, instanceID string) error {
	_, err := onRecord(ctx, c, verb.On(KindLoadBalancer), "loadBalancerID", lbID,
		func() error { return checkID("instanceID", KindInstance, instanceID) },
		func(k call, rec *record) (struct{}, error) {
			if verb == VerbDeregister {
				c.deregisterLocked(rec, instanceID)
				return struct{}{}, nil
			}
			inst, err := c.parentLocked(k.owner(), "instanceID", KindInstance, instanceID)
			if err != nil {
				return struct{}{}, err
			}
			if network, lbNetwork := inst.obj.(*Instance).NetworkID, rec.obj.(*LoadBalancer).NetworkID; network != lbNetwork {
				return struct{}{}, invalid("instanceID", instanceID, fmt.Sprintf("is in network %q, not in network %q of the load balancer", network, lbNetwork))
			}
			c.registerLocked(rec, instanceID)
			return struct{}{}, nil
		})
	return err
}

// registerLocked adds an instance to the targets of a load balancer, unless it is one already.
func (c *Cloud) registerLocked(lb *record, instanceID string) {
	l := lb.obj.(*LoadBalancer)
	if !slices.Contains(l.Targets, instanceID) {
		l.Targets = append(l.Targets, instanceID)
		slices.Sort(l.Targets)
		c.index.targetOf.put(instanceID, lb)
	}
}

// deregisterLocked removes an instance from the targets of a load balancer, if it is one.
func (c *Cloud) deregisterLocked(lb *record, instanceID string) {
	l := lb.obj.(*LoadBalancer)
	l.Targets = slices.DeleteFunc(l.Targets, func(t string) bool { return t == instanceID })
	c.index.targetOf.drop(instanceID, lb)
}

// CreateInstance starts an instance in a subnet, or returns the one created earlier with the
// same IdempotencyToken (see Cloud). The instance gets the subnet's lowest free address; it is
// InstanceRunning at once unless WithPendingGets is set.
func (c *Cloud) CreateInstance(ctx context.Context, spec InstanceSpec) (*Instance, error) {
	return as[Instance](c.create(ctx, createReq{
		kind: KindInstance, name: spec.Name, tags: spec.Tags, token: spec.IdempotencyToken,
		fingerprint: fingerprint(spec.Name, formatTags(spec.Tags), spec.SubnetID, spec.Image, spec.Flavor,
			strings.Join(spec.SecurityGroupIDs, ","), digest(spec.UserData), strings.Join(spec.StaticIPs, ",")),
		build: func(m Meta, account string) (*record, error) { return c.buildInstanceLocked(m, account, spec) },
	}))
}

func (c *Cloud) buildInstanceLocked(m Meta, account string, spec InstanceSpec) (*record, error) {
	subnet, err := c.checkInstanceLocked(account, spec)
	if err != nil {
		return nil, err
	}
	static, err := c.checkStaticIPsLocked(spec.StaticIPs)
	if err != nil {
		return nil, err
	}
	ip, ok := subnet.addrs.take(m.ID)
	if !ok {
		return nil, fmt.Errorf("%w: no free address in subnet %q", ErrQuotaExceeded, spec.SubnetID)
	}
	rec := c.newInstanceLocked(m, spec, subnet, ip)
	if len(static) > 0 {
		inst := rec.obj.(*Instance)
		rec.staticIPs = static
		for _, a := range static {
			c.staticIPs[a] = m.ID
			inst.StaticIPs = append(inst.StaticIPs, a.String())
		}
	}
	return rec, nil
}

// checkStaticIPsLocked parses the static addresses of a new instance: at most MaxStaticIPs, each an
// IP address without zone, listed once and attached to no live instance. It changes nothing.
func (c *Cloud) checkStaticIPsLocked(addrs []string) ([]netip.Addr, error) {
	if len(addrs) > MaxStaticIPs {
		return nil, invalid("staticIPs", strings.Join(addrs, ","), fmt.Sprintf("has %d addresses, at most %d are allowed", len(addrs), MaxStaticIPs))
	}
	out := make([]netip.Addr, 0, len(addrs))
	for i, s := range addrs {
		field := fmt.Sprintf("staticIPs[%d]", i)
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return nil, invalid(field, s, "is not an IP address without zone")
		}
		a = a.Unmap() // "::ffff:10.0.0.1" is 10.0.0.1
		if slices.Contains(out, a) {
			return nil, invalid(field, s, "is listed twice")
		}
		if _, used := c.staticIPs[a]; used {
			// The owner is not named: it may belong to another account.
			return nil, fmt.Errorf("%w: %s %q is attached to another instance", ErrAddressInUse, field, s)
		}
		out = append(out, a)
	}
	return out, nil
}

// checkInstanceLocked validates the parameters of a new instance, or of the instances of a new
// group, in account and returns the record of its subnet.
func (c *Cloud) checkInstanceLocked(account string, spec InstanceSpec) (*record, error) {
	switch {
	case spec.Image == "":
		return nil, invalid("image", spec.Image, "must not be empty")
	case spec.Flavor == "":
		return nil, invalid("flavor", spec.Flavor, "must not be empty")
	case !slices.Contains(c.flavors, spec.Flavor):
		return nil, c.unknownFlavor(spec.Flavor)
	case len(spec.UserData) > c.maxUserData:
		return nil, c.userDataTooLarge(spec.UserData)
	}
	subnet, err := c.parentLocked(account, "subnetID", KindSubnet, spec.SubnetID)
	if err != nil {
		return nil, err
	}
	for i, id := range spec.SecurityGroupIDs {
		field := fmt.Sprintf("securityGroupIDs[%d]", i)
		sg, err := c.parentLocked(account, field, KindSecurityGroup, id)
		if err != nil {
			return nil, err
		}
		if sg.parent != subnet.parent {
			return nil, invalid(field, id, fmt.Sprintf("is in network %q, not in network %q of the subnet", sg.parent, subnet.parent))
		}
		if slices.Index(spec.SecurityGroupIDs, id) != i {
			return nil, invalid(field, id, "is listed twice")
		}
	}
	return subnet, nil
}

// userDataTooLarge is the error of user data above WithMaxUserDataSize. It gives the size
// only: user data holds bootstrap secrets.
func (c *Cloud) userDataTooLarge(data []byte) error {
	return invalid("userData", fmt.Sprintf("%d bytes", len(data)), fmt.Sprintf("must be at most %d bytes", c.maxUserData))
}

// newInstanceLocked returns the record of a new instance of spec at address ip of subnet, which
// the caller took from the subnet's addresses.
func (c *Cloud) newInstanceLocked(m Meta, spec InstanceSpec, subnet *record, ip netip.Addr) *record {
	state := InstanceRunning
	if c.pendingGets > 0 {
		state = InstancePending
	}
	inst := &Instance{
		Meta: m, SubnetID: subnet.id(), NetworkID: subnet.parent, PrivateIP: ip.String(),
		Image: spec.Image, Flavor: spec.Flavor, SecurityGroupIDs: slices.Clone(spec.SecurityGroupIDs), State: state,
	}
	return &record{
		obj: inst, parent: subnet.id(), ip: ip,
		userData: slices.Clone(spec.UserData), pendingGets: c.pendingGets,
	}
}

// GetInstance returns the instance with the given ID, or an error wrapping ErrNotFound. Each
// call moves a pending instance closer to running: see WithPendingGets.
func (c *Cloud) GetInstance(ctx context.Context, id string) (*Instance, error) {
	return as[Instance](c.get(ctx, KindInstance, id))
}

// DeleteInstance terminates an instance, releasing its address and its load balancer
// registrations. It fails with ErrNotFound when it is gone.
func (c *Cloud) DeleteInstance(ctx context.Context, id string) error {
	return c.delete(ctx, KindInstance, id)
}

// FindInstances returns the instances that have all the given tags (at least one), in creation
// order. Recently created instances may be missing: see WithSearchLag and FaultConfig.SearchLag.
func (c *Cloud) FindInstances(ctx context.Context, tags map[string]string) ([]Instance, error) {
	return asList[Instance](c.find(ctx, KindInstance, tags))
}

// advanceInstance moves a pending instance towards running on a GetInstance call; a resized one runs
// with its new flavor.
func advanceInstance(rec *record) {
	inst := rec.obj.(*Instance)
	if inst.State != InstancePending {
		return
	}
	if rec.pendingGets > 0 {
		rec.pendingGets--
		return
	}
	inst.State = InstanceRunning
	if inst.ResizingTo != "" {
		inst.Flavor, inst.ResizingTo = inst.ResizingTo, ""
	}
}
