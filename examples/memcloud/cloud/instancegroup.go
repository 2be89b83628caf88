package cloud

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CreateInstanceGroup creates an instance group in a subnet and starts its Size instances, or
// returns the group created earlier with the same IdempotencyToken (see Cloud; the fingerprint
// covers the user data and the initial size, so a retry after a scale still matches). The
// creation is atomic: when the quotas (WithQuota of KindInstanceGroup and KindInstance) or the
// subnet's free addresses do not allow the group and all its instances, it fails with
// ErrQuotaExceeded and creates nothing.
//
// Each instance is an Instance resource named "<name>-<n>", in the group's subnet, with its
// image, flavor, security groups and user data, the group's tags and TagInstanceGroup set to
// the group's ID. Instances are InstanceRunning at once unless WithPendingGets is set.
func (c *Cloud) CreateInstanceGroup(ctx context.Context, spec InstanceGroupSpec) (*InstanceGroup, error) {
	return as[InstanceGroup](c.create(ctx, createReq{
		kind: KindInstanceGroup, name: spec.Name, tags: spec.Tags, token: spec.IdempotencyToken,
		fingerprint: fingerprint(spec.Name, formatTags(spec.Tags), spec.SubnetID, spec.Image, spec.Flavor,
			strings.Join(spec.SecurityGroupIDs, ","), digest(spec.UserData), strconv.Itoa(spec.Size)),
		build:    func(m Meta, account string) (*record, error) { return c.buildGroupLocked(m, account, spec) },
		populate: func(rec *record) { c.growGroupLocked(rec, spec.Size) },
	}))
}

func (c *Cloud) buildGroupLocked(m Meta, account string, spec InstanceGroupSpec) (*record, error) {
	if err := validGroupSize(spec.Size); err != nil {
		return nil, err
	}
	subnet, err := c.checkInstanceLocked(account, InstanceSpec{
		SubnetID: spec.SubnetID, Image: spec.Image, Flavor: spec.Flavor,
		SecurityGroupIDs: spec.SecurityGroupIDs, UserData: spec.UserData,
	})
	if err != nil {
		return nil, err
	}
	if err := c.checkGrowLocked(account, subnet, spec.Size); err != nil {
		return nil, err
	}
	g := &InstanceGroup{
		Meta: m, SubnetID: spec.SubnetID, NetworkID: subnet.parent, Image: spec.Image, Flavor: spec.Flavor,
		SecurityGroupIDs: slices.Clone(spec.SecurityGroupIDs), Size: spec.Size,
	}
	return &record{obj: g, parent: spec.SubnetID, userData: slices.Clone(spec.UserData)}, nil
}

func validGroupSize(size int) error {
	if size < 0 || size > MaxInstanceGroupSize {
		return invalid("size", size, fmt.Sprintf("must be from 0 to %d", MaxInstanceGroupSize))
	}
	return nil
}

// checkGrowLocked fails with ErrQuotaExceeded when n more instances do not fit in the instance
// quota of account or in the free addresses of subnet.
func (c *Cloud) checkGrowLocked(account string, subnet *record, n int) error {
	if err := c.checkQuotaLocked(account, KindInstance, n); err != nil {
		return err
	}
	if free := subnet.addrs.free(); free < n {
		return fmt.Errorf("%w: %d free addresses in subnet %q, %d needed", ErrQuotaExceeded, free, subnet.id(), n)
	}
	return nil
}

// growGroupLocked starts n instances in the group with its current user data. The caller has
// made sure that they fit (checkGrowLocked).
func (c *Cloud) growGroupLocked(rec *record, n int) {
	g := rec.obj.(*InstanceGroup)
	subnet := c.records[g.SubnetID]
	spec := InstanceSpec{Image: g.Image, Flavor: g.Flavor, SecurityGroupIDs: g.SecurityGroupIDs, UserData: rec.userData}
	for range n {
		tags := cloneTags(g.Tags)
		tags[TagInstanceGroup] = g.ID
		m := Meta{ID: c.newIDLocked(KindInstance), Name: g.Name + "-" + strconv.Itoa(rec.started), Tags: tags, CreatedAt: c.now()}
		ip, _ := subnet.addrs.take(m.ID) // checkGrowLocked counted the free addresses
		inst := c.newInstanceLocked(m, spec, subnet, ip)
		inst.kind, inst.group, inst.account = KindInstance, g.ID, rec.account
		c.scheduleLocked(inst, rec.readyAt) // with the group, when its create operation ends
		c.addLocked(inst)
		rec.started++
		rec.members = append(rec.members, m.ID)
	}
}

// shrinkGroupLocked deletes the n newest instances of a group (nothing when n <= 0 or rec is
// not a group).
func (c *Cloud) shrinkGroupLocked(rec *record, n int) {
	for range n {
		c.removeLocked(c.records[rec.members[len(rec.members)-1]])
	}
}

// GetInstanceGroup returns the instance group with the given ID and its live instances, or an
// error wrapping ErrNotFound. Like GetInstance, each call moves every pending instance of the
// group closer to running: see WithPendingGets.
func (c *Cloud) GetInstanceGroup(ctx context.Context, id string) (*InstanceGroup, error) {
	return as[InstanceGroup](c.get(ctx, KindInstanceGroup, id))
}

// DeleteInstanceGroup terminates the group's instances, newest first (releasing their addresses
// and load balancer registrations as DeleteInstance does), then deletes the group. It fails
// with ErrNotFound when it is gone.
func (c *Cloud) DeleteInstanceGroup(ctx context.Context, id string) error {
	return c.delete(ctx, KindInstanceGroup, id)
}

// FindInstanceGroups returns the instance groups that have all the given tags (at least one), in
// creation order. Recently created groups may be missing: see WithSearchLag and FaultConfig.SearchLag. To find a
// group's instances, use FindInstances with TagInstanceGroup.
func (c *Cloud) FindInstanceGroups(ctx context.Context, tags map[string]string) ([]InstanceGroup, error) {
	return asList[InstanceGroup](c.find(ctx, KindInstanceGroup, tags))
}

// ScaleInstanceGroup sets the size of an instance group, 0 to MaxInstanceGroupSize, and brings
// the number of its live instances to size: scaling up starts instances as CreateInstanceGroup
// does, with the group's current user data (see UpdateInstanceGroupUserData); scaling down
// terminates the newest instances first, as DeleteInstance does. Instances deleted directly
// with DeleteInstance have left the group, so scaling to the current size replaces them;
// scaling to the current size of a complete group changes nothing (the call is counted, the
// update is not: see Stats.Updated). It returns the group as it is afterwards.
//
// When the new instances do not fit in the instance quota (WithQuota) or in the subnet's free
// addresses, it fails with ErrQuotaExceeded and changes nothing. It fails with ErrNotFound when
// the group is gone. Like every mutating call it is subject to fault injection, the
// lost-response case included: retrying with the same size is safe.
func (c *Cloud) ScaleInstanceGroup(ctx context.Context, id string, size int) (*InstanceGroup, error) {
	g, err := c.scaleGroup(ctx, id, size)
	if err != nil {
		return nil, fmt.Errorf("cannot scale instance group %q to %d: %w", id, size, err)
	}
	return g, nil
}

func (c *Cloud) scaleGroup(ctx context.Context, id string, size int) (*InstanceGroup, error) {
	return onRecord(ctx, c, VerbScale.On(KindInstanceGroup), "id", id, func() error { return validGroupSize(size) },
		func(_ call, rec *record) (*InstanceGroup, error) {
			g := rec.obj.(*InstanceGroup)
			live := len(rec.members)
			if size > live {
				if err := c.checkGrowLocked(rec.account, c.records[g.SubnetID], size-live); err != nil {
					return nil, err
				}
				c.growGroupLocked(rec, size-live)
			}
			c.shrinkGroupLocked(rec, live-size)
			if g.Size != size || live != size {
				g.Size = size
				c.stats.Updated[KindInstanceGroup]++
			}
			return as[InstanceGroup](c.objectLocked(rec), nil)
		})
}

// UpdateInstanceGroupUserData replaces the user data of an instance group, validated as in
// CreateInstanceGroup. Instances started afterwards (ScaleInstanceGroup) boot with it, for
// example with a rotated join token; running instances keep the data they booted with. Data
// equal to the current one changes nothing (the call is counted, the update is not: see
// Stats.Updated). It fails with ErrNotFound when the group is gone. Like every mutating call
// it is subject to fault injection, the lost-response case included.
func (c *Cloud) UpdateInstanceGroupUserData(ctx context.Context, id string, userData []byte) error {
	if err := c.updateUserData(ctx, id, userData); err != nil {
		return fmt.Errorf("cannot update the user data of instance group %q: %w", id, err)
	}
	return nil
}

func (c *Cloud) updateUserData(ctx context.Context, id string, userData []byte) error {
	valid := func() error {
		if len(userData) > c.maxUserData {
			return c.userDataTooLarge(userData)
		}
		return nil
	}
	_, err := onRecord(ctx, c, VerbUpdate.On(KindInstanceGroup), "id", id, valid, func(_ call, rec *record) (struct{}, error) {
		if !bytes.Equal(rec.userData, userData) {
			rec.userData = slices.Clone(userData)
			c.stats.Updated[KindInstanceGroup]++
		}
		return struct{}{}, nil
	})
	return err
}
