package cloud_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

func TestDeletingAnInstanceDeregistersItEverywhere(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	newLB := func(name string) string {
		lb, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: name, NetworkID: e.net.ID})
		require.NoError(t, err)
		return lb.ID
	}
	newInstance := func(name string) string {
		inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: name, SubnetID: e.subnet.ID, Image: "img", Flavor: "small"})
		require.NoError(t, err)
		return inst.ID
	}
	targets := func(lb string) []string {
		got, err := e.c.GetLoadBalancer(ctx, lb)
		require.NoError(t, err)
		return got.Targets
	}
	lb1, lb2 := newLB("lb1"), newLB("lb2")
	i1, i2 := newInstance("i1"), newInstance("i2")
	both := []string{i1, i2}
	if i2 < i1 {
		both = []string{i2, i1}
	}

	tests := []struct {
		name string
		do   func(t *testing.T)
		lb1  []string
		lb2  []string
	}{
		{"registered", func(t *testing.T) {
			for _, lb := range []string{lb1, lb2} {
				require.NoError(t, e.c.RegisterTarget(ctx, lb, i1))
			}
			require.NoError(t, e.c.RegisterTarget(ctx, lb1, i2))
			require.NoError(t, e.c.RegisterTarget(ctx, lb1, i2), "twice")
		}, both, []string{i1}},
		{"i1 deregistered from lb2", func(t *testing.T) { require.NoError(t, e.c.DeregisterTarget(ctx, lb2, i1)) }, both, []string{}},
		{"i1 deregistered again", func(t *testing.T) { require.NoError(t, e.c.DeregisterTarget(ctx, lb2, i1)) }, both, []string{}},
		{"i1 registered again", func(t *testing.T) { require.NoError(t, e.c.RegisterTarget(ctx, lb2, i1)) }, both, []string{i1}},
		{"i1 deleted", func(t *testing.T) { require.NoError(t, e.c.DeleteInstance(ctx, i1)) }, []string{i2}, []string{}},
		{"lb1 deleted, i2 registered with lb2", func(t *testing.T) {
			require.NoError(t, e.c.DeleteLoadBalancer(ctx, lb1))
			require.NoError(t, e.c.RegisterTarget(ctx, lb2, i2))
		}, nil, []string{i2}},
		{"i2 deleted", func(t *testing.T) { require.NoError(t, e.c.DeleteInstance(ctx, i2)) }, nil, []string{}},
	}
	for _, tt := range tests {
		tt.do(t)
		if tt.lb1 != nil {
			assert.Equal(t, tt.lb1, targets(lb1), tt.name)
		}
		assert.Equal(t, tt.lb2, targets(lb2), tt.name)
	}
}

func TestDependentsFollowDeletes(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	g, err := e.c.CreateInstanceGroup(ctx, cloud.InstanceGroupSpec{Name: "g", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", Size: 2,
		SecurityGroupIDs: []string{e.sg.ID}})
	require.NoError(t, err)
	inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", SecurityGroupIDs: []string{e.sg.ID}})
	require.NoError(t, err)
	group := fmt.Sprintf("instance group %q, instance %q, instance %q", g.ID, g.Instances[0].ID, g.Instances[1].ID)

	steps := []struct {
		name string
		do   func() error
		want string // the dependents named by the refused deletes of the subnet and the security group
	}{
		{"group and instance", nil, group + " and 1 more"},
		{"group scaled down", func() error { _, err := e.c.ScaleInstanceGroup(ctx, g.ID, 1); return err },
			fmt.Sprintf("instance group %q, instance %q, instance %q", g.ID, g.Instances[0].ID, inst.ID)},
		{"instance deleted", func() error { return e.c.DeleteInstance(ctx, inst.ID) },
			fmt.Sprintf("instance group %q, instance %q", g.ID, g.Instances[0].ID)},
		{"group deleted", func() error { return e.c.DeleteInstanceGroup(ctx, g.ID) }, ""},
	}
	for _, s := range steps {
		if s.do != nil {
			require.NoError(t, s.do(), s.name)
		}
		for _, del := range []func() error{
			func() error { return e.c.DeleteSubnet(ctx, e.subnet.ID) },
			func() error { return e.c.DeleteSecurityGroup(ctx, e.sg.ID) },
		} {
			err := del()
			if s.want == "" {
				require.NoError(t, err, s.name)
				continue
			}
			require.ErrorIs(t, err, cloud.ErrDependencyViolation, s.name)
			assert.Contains(t, err.Error(), "still used by "+s.want, s.name)
		}
	}
	require.NoError(t, e.c.DeleteNetwork(ctx, e.net.ID))
	assert.Empty(t, e.c.All())
}

func TestSubnetOverlapFollowsDeletes(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t) // subnet 10.0.1.0/24
	other, err := e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "other", CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
	_, err = e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: other.ID, CIDR: "10.0.1.0/24"})
	require.NoError(t, err, "the subnets of another network do not overlap")
	second, err := e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.net.ID, CIDR: "10.0.2.0/24"})
	require.NoError(t, err)

	_, err = e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.net.ID, CIDR: "10.0.0.0/22"})
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), fmt.Sprintf("overlaps cidr %q of subnet %q", "10.0.1.0/24", e.subnet.ID), "the oldest")
	require.NoError(t, e.c.DeleteSubnet(ctx, e.subnet.ID))
	_, err = e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.net.ID, CIDR: "10.0.0.0/22"})
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), fmt.Sprintf("overlaps cidr %q of subnet %q", "10.0.2.0/24", second.ID))
	require.NoError(t, e.c.DeleteSubnet(ctx, second.ID))
	_, err = e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.net.ID, CIDR: "10.0.0.0/22"})
	require.NoError(t, err)
}

// TestAddressesMatchAModel creates and deletes instances at random, alone and in a group, in a
// /26 and checks that each new instance gets the lowest free address, as a plain set of the
// used addresses computes it.
func TestAddressesMatchAModel(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	subnet := newSubnet(ctx, t, c, "10.0.0.64/26")
	g, err := c.CreateInstanceGroup(ctx, cloud.InstanceGroupSpec{Name: "g", SubnetID: subnet.ID, Image: "img", Flavor: "small"})
	require.NoError(t, err)
	first, end := netip.MustParseAddr("10.0.0.68"), netip.MustParseAddr("10.0.0.127") // 4 reserved, and the last
	used := map[netip.Addr]string{}                                                   // address -> instance ID
	lowestFree := func() (netip.Addr, bool) {
		for a := first; a != end; a = a.Next() {
			if _, ok := used[a]; !ok {
				return a, true
			}
		}
		return netip.Addr{}, false
	}
	take := func(id, ip string) {
		t.Helper()
		want, ok := lowestFree()
		require.True(t, ok)
		require.Equal(t, want.String(), ip)
		used[want] = id
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for step := range 3000 {
		switch op := rng.IntN(10); {
		case op < 4:
			inst, err := c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: subnet.ID, Image: "img", Flavor: "small"})
			if _, ok := lowestFree(); !ok {
				require.ErrorIs(t, err, cloud.ErrQuotaExceeded, "step %d", step)
				continue
			}
			require.NoError(t, err, "step %d", step)
			take(inst.ID, inst.PrivateIP)
		case op < 7 && len(used) > 0:
			var addrs []netip.Addr
			for a := range used {
				addrs = append(addrs, a)
			}
			a := addrs[rng.IntN(len(addrs))]
			require.NoError(t, c.DeleteInstance(ctx, used[a]), "step %d", step)
			delete(used, a)
		default:
			size := rng.IntN(4)
			got, err := c.ScaleInstanceGroup(ctx, g.ID, size)
			if err != nil {
				require.ErrorIs(t, err, cloud.ErrQuotaExceeded, "step %d", step)
				continue
			}
			for a, id := range used { // the instances a scale down deleted
				if _, err := c.GetInstance(ctx, id); err != nil {
					require.ErrorIs(t, err, cloud.ErrNotFound, "step %d", step)
					delete(used, a)
				}
			}
			for _, gi := range got.Instances { // oldest first: the new ones last, in the order they took addresses
				if _, known := used[netip.MustParseAddr(gi.PrivateIP)]; !known {
					take(gi.ID, gi.PrivateIP)
				}
			}
		}
	}
}
