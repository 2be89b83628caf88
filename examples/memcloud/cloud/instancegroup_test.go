package cloud_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

var (
	scaleIG      = cloud.VerbScale.On(cloud.KindInstanceGroup)
	updateIG     = cloud.VerbUpdate.On(cloud.KindInstanceGroup)
	poolTags     = map[string]string{"capkit.io/cluster": "c1", "role": "pool"}
	poolUserData = []byte("#cloud-config\njoin-token: secret-1\n")
)

// poolSpec is the spec of a group named "pool" in the env's subnet and security group.
func poolSpec(e env, size int) cloud.InstanceGroupSpec {
	return cloud.InstanceGroupSpec{
		Name: "pool", SubnetID: e.subnet.ID, Image: "ubuntu-24.04", Flavor: "small",
		SecurityGroupIDs: []string{e.sg.ID}, UserData: poolUserData, Size: size,
		Tags: poolTags, IdempotencyToken: "pool",
	}
}

// newPool creates a group of the given size in a fresh env and resets the counters.
func newPool(t *testing.T, size int, opts ...cloud.Option) (env, *cloud.InstanceGroup) {
	t.Helper()
	e := newEnv(t, opts...)
	g, err := e.c.CreateInstanceGroup(context.Background(), poolSpec(e, size))
	require.NoError(t, err)
	e.c.ResetCounters()
	return e, g
}

// memberIDs returns the IDs of a group's instances, oldest first.
func memberIDs(g *cloud.InstanceGroup) []string {
	out := []string{}
	for _, i := range g.Instances {
		out = append(out, i.ID)
	}
	return out
}

// getGroup reads a group through the API.
func getGroup(t *testing.T, c *cloud.Cloud, id string) *cloud.InstanceGroup {
	t.Helper()
	g, err := c.GetInstanceGroup(context.Background(), id)
	require.NoError(t, err)
	return g
}

// assertConsistent checks that the group's instances are exactly the live instances that carry
// its tag, that it has size of them, and that they have distinct addresses.
func assertConsistent(t *testing.T, c *cloud.Cloud, id string, size int) {
	t.Helper()
	g := getGroup(t, c, id)
	assert.Equal(t, size, g.Size)
	assert.Len(t, g.Instances, size)
	tagged, err := findIDs(c.FindInstances(t.Context(), map[string]string{cloud.TagInstanceGroup: id}))
	require.NoError(t, err)
	assert.Equal(t, memberIDs(g), tagged)
	ips := map[string]bool{}
	for _, i := range g.Instances {
		ips[i.PrivateIP] = true
	}
	assert.Len(t, ips, size, "distinct addresses")
}

func TestCreateInstanceGroup(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	g, err := e.c.CreateInstanceGroup(ctx, poolSpec(e, 3))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(g.ID, "ig-"), g.ID)
	assert.Equal(t, "pool", g.Name)
	assert.Equal(t, poolTags, g.Tags)
	assert.Equal(t, e.subnet.ID, g.SubnetID)
	assert.Equal(t, e.net.ID, g.NetworkID)
	assert.Equal(t, "ubuntu-24.04", g.Image)
	assert.Equal(t, "small", g.Flavor)
	assert.Equal(t, []string{e.sg.ID}, g.SecurityGroupIDs)
	assert.Equal(t, 3, g.Size)
	require.Len(t, g.Instances, 3)

	wantTags := map[string]string{"capkit.io/cluster": "c1", "role": "pool", cloud.TagInstanceGroup: g.ID}
	for n, gi := range g.Instances {
		assert.Equal(t, cloud.InstanceRunning, gi.State)
		assert.Equal(t, fmt.Sprintf("10.0.1.%d", 4+n), gi.PrivateIP)
		inst, err := e.c.GetInstance(ctx, gi.ID)
		require.NoError(t, err)
		assert.Equal(t, cloud.Instance{
			Meta:     cloud.Meta{ID: gi.ID, Name: fmt.Sprintf("pool-%d", n), Tags: wantTags, CreatedAt: inst.CreatedAt},
			SubnetID: e.subnet.ID, NetworkID: e.net.ID, PrivateIP: gi.PrivateIP, Image: "ubuntu-24.04", Flavor: "small",
			SecurityGroupIDs: []string{e.sg.ID}, State: cloud.InstanceRunning,
		}, *inst)
		data, err := e.c.InstanceUserData(gi.ID)
		require.NoError(t, err)
		assert.Equal(t, poolUserData, data)
	}
	data, err := e.c.InstanceGroupUserData(g.ID)
	require.NoError(t, err)
	assert.Equal(t, poolUserData, data)

	assert.Equal(t, 1, e.c.Count(cloud.KindInstanceGroup))
	assert.Equal(t, 3, e.c.Count(cloud.KindInstance))
	assert.Equal(t, 3+3+1, e.c.TotalCreated(), "network, subnet, security group, group and instances")
	s := e.c.Calls()
	assert.Equal(t, map[cloud.Kind]int{cloud.KindInstanceGroup: 1, cloud.KindInstance: 3}, s.Created)
	assert.Equal(t, 1, s.Mutations, "one call")

	all := e.c.All()
	require.Len(t, all, 3+4)
	assert.Equal(t, cloud.KindInstanceGroup, all[3].Kind, "the group is created before its instances")
	assert.Equal(t, e.subnet.ID, all[3].ParentID)
	for _, res := range all[4:] {
		assert.Equal(t, cloud.KindInstance, res.Kind)
		assert.Equal(t, e.subnet.ID, res.ParentID)
	}
	assertConsistent(t, e.c, g.ID, 3)
}

func TestCreateEmptyInstanceGroup(t *testing.T) {
	e, g := newPool(t, 0)
	assert.NotNil(t, g.Instances)
	assert.Empty(t, g.Instances)
	assert.Zero(t, e.c.Count(cloud.KindInstance))
}

func TestCreateInstanceGroupIdempotency(t *testing.T) {
	ctx := t.Context()
	e, g := newPool(t, 3)
	spec := poolSpec(e, 3)

	again, err := e.c.CreateInstanceGroup(ctx, spec)
	require.NoError(t, err)
	assert.Equal(t, g, again, "the same group and instances")
	assert.Equal(t, 3, e.c.Count(cloud.KindInstance), "no extra instance")
	assert.Empty(t, e.c.Calls().Created)

	_, err = e.c.ScaleInstanceGroup(ctx, g.ID, 5)
	require.NoError(t, err)
	again, err = e.c.CreateInstanceGroup(ctx, spec)
	require.NoError(t, err, "a retry still matches after a scale: the fingerprint has the initial size")
	assert.Equal(t, 5, again.Size)
	assert.Len(t, again.Instances, 5)

	variants := map[string]func(s *cloud.InstanceGroupSpec){
		"name":           func(s *cloud.InstanceGroupSpec) { s.Name = "other" },
		"image":          func(s *cloud.InstanceGroupSpec) { s.Image = "other" },
		"flavor":         func(s *cloud.InstanceGroupSpec) { s.Flavor = "large" },
		"security group": func(s *cloud.InstanceGroupSpec) { s.SecurityGroupIDs = nil },
		"user data":      func(s *cloud.InstanceGroupSpec) { s.UserData = []byte("secret-2") },
		"size":           func(s *cloud.InstanceGroupSpec) { s.Size = 4 },
		"tags":           func(s *cloud.InstanceGroupSpec) { s.Tags = map[string]string{"capkit.io/cluster": "c2"} },
	}
	for name, change := range variants {
		t.Run(name, func(t *testing.T) {
			s := spec
			change(&s)
			_, err := e.c.CreateInstanceGroup(ctx, s)
			require.ErrorIs(t, err, cloud.ErrTokenMismatch)
			assert.Contains(t, err.Error(), `cannot create instance group "`+s.Name+`": idempotency token already used with different parameters: token "pool" created instance group "`+g.ID+`"`)
			assert.NotContains(t, err.Error(), "secret")
		})
	}
	assert.Equal(t, 1, e.c.Count(cloud.KindInstanceGroup))
	assert.Equal(t, 5, e.c.Count(cloud.KindInstance))

	require.NoError(t, e.c.DeleteInstanceGroup(ctx, g.ID))
	_, err = e.c.CreateInstanceGroup(ctx, spec)
	require.ErrorIs(t, err, cloud.ErrTokenReused)
	assert.Zero(t, e.c.Count(cloud.KindInstance))
}

func TestCreateInstanceGroupLostResponse(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	require.NoError(t, e.c.FailNext(cloud.VerbCreate.On(cloud.KindInstanceGroup), cloud.AfterChange))
	_, err := e.c.CreateInstanceGroup(ctx, poolSpec(e, 2))
	require.ErrorIs(t, err, cloud.ErrInjected)
	assert.Equal(t, 2, e.c.Count(cloud.KindInstance), "the lost call created the group and its instances")
	g, err := e.c.CreateInstanceGroup(ctx, poolSpec(e, 2))
	require.NoError(t, err)
	assert.Len(t, g.Instances, 2)
	assert.Equal(t, 1, e.c.Count(cloud.KindInstanceGroup))
	assert.Equal(t, 2, e.c.Count(cloud.KindInstance))
}

func TestScaleInstanceGroup(t *testing.T) {
	ctx := t.Context()
	e, g := newPool(t, 0)
	var names []string
	var history [][]string // the group's instances after each scale
	for _, size := range []int{5, 2, 0, 1} {
		got, err := e.c.ScaleInstanceGroup(ctx, g.ID, size)
		require.NoError(t, err, size)
		assert.Equal(t, size, got.Size)
		assert.Equal(t, size, e.c.Count(cloud.KindInstance), "exactly %d live instances", size)
		assert.Equal(t, got, getGroup(t, e.c, g.ID))
		assertConsistent(t, e.c, g.ID, size)
		history = append(history, memberIDs(got))
		for _, gi := range got.Instances {
			inst, err := e.c.GetInstance(ctx, gi.ID)
			require.NoError(t, err)
			names = append(names, inst.Name)
		}
	}
	assert.Equal(t, history[0][:2], history[1], "scaling down deletes the newest instances first")
	assert.Empty(t, history[2])
	assert.Equal(t, []string{"pool-0", "pool-1", "pool-2", "pool-3", "pool-4", "pool-0", "pool-1", "pool-5"}, names,
		"new instances get new names")

	s := e.c.Calls()
	assert.Equal(t, 4, s.Of(cloud.VerbScale, cloud.KindInstanceGroup))
	assert.Equal(t, 4, s.Mutations, "a scale is a mutating call")
	assert.Equal(t, 6, s.Created[cloud.KindInstance])
	assert.Equal(t, 5, s.Deleted[cloud.KindInstance])
	assert.Equal(t, 4, s.Updated[cloud.KindInstanceGroup])

	same, err := e.c.ScaleInstanceGroup(ctx, g.ID, 1)
	require.NoError(t, err)
	assert.Equal(t, history[3], memberIDs(same), "scaling to the current size changes nothing")
	assert.Equal(t, 4, e.c.Calls().Updated[cloud.KindInstanceGroup], "and is not counted as an update")
	assert.Equal(t, 6, e.c.Calls().Created[cloud.KindInstance])
}

func TestScaleInstanceGroupFaults(t *testing.T) {
	tests := faultCases(scaleIG)
	for _, tt := range tests {
		for _, size := range []int{1, 4} { // down and up from 2
			t.Run(fmt.Sprintf("%s/to %d", tt.name, size), func(t *testing.T) {
				ctx := t.Context()
				e, g := newPool(t, 2)
				tt.inject(t, e.c)

				got, err := e.c.ScaleInstanceGroup(ctx, g.ID, size)
				require.ErrorIs(t, err, cloud.ErrInjected)
				assert.Nil(t, got)
				var fe *cloud.FaultError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, scaleIG, fe.Op)
				assert.Equal(t, tt.wantApplied, fe.Applied)
				assert.Contains(t, err.Error(), fmt.Sprintf("cannot scale instance group %q to %d: injected fault in ScaleInstanceGroup", g.ID, size))
				require.NoError(t, e.c.SetFaults(cloud.FaultConfig{}))

				want := 2
				if tt.wantApplied {
					want = size
				}
				assertConsistent(t, e.c, g.ID, want)
				before := getGroup(t, e.c, g.ID)

				retried, err := e.c.ScaleInstanceGroup(ctx, g.ID, size)
				require.NoError(t, err, "the retry succeeds")
				assertConsistent(t, e.c, g.ID, size)
				if tt.wantApplied {
					assert.Equal(t, memberIDs(before), memberIDs(retried), "the retry changes nothing")
				}
				assert.Equal(t, size, e.c.Count(cloud.KindInstance), "no extra instance")
				s := e.c.Calls()
				assert.Equal(t, abs(size-2), s.Created[cloud.KindInstance]+s.Deleted[cloud.KindInstance], "one scale's worth of changes")
			})
		}
	}
}

func abs(n int) int { return max(n, -n) }

func TestScaleReplacesInstancesDeletedOutOfBand(t *testing.T) {
	ctx := t.Context()
	e, g := newPool(t, 3)
	gone := g.Instances[1].ID
	require.NoError(t, e.c.DeleteInstance(ctx, gone))

	left := getGroup(t, e.c, g.ID)
	assert.Equal(t, 3, left.Size, "the size is unchanged")
	assert.Equal(t, []string{g.Instances[0].ID, g.Instances[2].ID}, memberIDs(left), "the instance left the group")
	assert.Equal(t, 2, e.c.Count(cloud.KindInstance))

	got, err := e.c.ScaleInstanceGroup(ctx, g.ID, 3)
	require.NoError(t, err)
	require.Len(t, got.Instances, 3, "scaling to the same size brings the live count back to it")
	assert.Equal(t, memberIDs(left), memberIDs(got)[:2])
	assert.NotContains(t, memberIDs(got), gone)
	assert.Equal(t, g.Instances[1].PrivateIP, got.Instances[2].PrivateIP, "the lowest free address is reused")
	assert.Equal(t, 1, e.c.Calls().Updated[cloud.KindInstanceGroup])
	assertConsistent(t, e.c, g.ID, 3)

	// Two instances gone and a scale down by one: one instance is started.
	for _, gi := range got.Instances[:2] {
		require.NoError(t, e.c.DeleteInstance(ctx, gi.ID))
	}
	survivor := got.Instances[2].ID
	got, err = e.c.ScaleInstanceGroup(ctx, g.ID, 2)
	require.NoError(t, err)
	require.Len(t, got.Instances, 2)
	assert.Equal(t, survivor, got.Instances[0].ID, "the survivor is kept, a new instance is started")
	assert.Equal(t, 2, e.c.Calls().Created[cloud.KindInstance])
	assertConsistent(t, e.c, g.ID, 2)
}

func TestInstanceGroupQuotas(t *testing.T) {
	ctx := t.Context()
	t.Run("instance quota on scale", func(t *testing.T) {
		e, g := newPool(t, 2, cloud.WithQuota(cloud.KindInstance, 4))
		_, err := e.c.ScaleInstanceGroup(ctx, g.ID, 5)
		require.ErrorIs(t, err, cloud.ErrQuotaExceeded)
		assert.Contains(t, err.Error(), fmt.Sprintf(`cannot scale instance group %q to 5: quota exceeded: 2 of 4 Instance resources in use, 3 more requested`, g.ID))
		assertConsistent(t, e.c, g.ID, 2)
		assert.Empty(t, e.c.Calls().Created, "nothing changed")
		assert.Empty(t, e.c.Calls().Updated)
		_, err = e.c.ScaleInstanceGroup(ctx, g.ID, 4)
		require.NoError(t, err, "up to the quota")
	})
	t.Run("subnet addresses on scale", func(t *testing.T) {
		e := newEnv(t)
		small, err := e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "small", NetworkID: e.net.ID, CIDR: "10.0.2.0/28"})
		require.NoError(t, err)
		spec := poolSpec(e, 10)
		spec.SubnetID = small.ID
		g, err := e.c.CreateInstanceGroup(ctx, spec)
		require.NoError(t, err)
		_, err = e.c.ScaleInstanceGroup(ctx, g.ID, 12)
		require.ErrorIs(t, err, cloud.ErrQuotaExceeded)
		assert.Contains(t, err.Error(), fmt.Sprintf(`1 free addresses in subnet %q, 2 needed`, small.ID))
		assertConsistent(t, e.c, g.ID, 10)
		_, err = e.c.ScaleInstanceGroup(ctx, g.ID, 11)
		require.NoError(t, err)
	})
	t.Run("create is all or nothing", func(t *testing.T) {
		e := newEnv(t, cloud.WithQuota(cloud.KindInstance, 2))
		_, err := e.c.CreateInstanceGroup(ctx, poolSpec(e, 3))
		require.ErrorIs(t, err, cloud.ErrQuotaExceeded)
		assert.Contains(t, err.Error(), `cannot create instance group "pool": quota exceeded: 0 of 2 Instance resources in use, 3 more requested`)
		assert.Empty(t, e.c.List(cloud.KindInstanceGroup))
		assert.Empty(t, e.c.List(cloud.KindInstance))
		_, err = e.c.CreateInstanceGroup(ctx, poolSpec(e, 2))
		require.NoError(t, err, "the failed request did not use up its token")
	})
	t.Run("group quota", func(t *testing.T) {
		e := newEnv(t, cloud.WithQuota(cloud.KindInstanceGroup, 1))
		_, err := e.c.CreateInstanceGroup(ctx, poolSpec(e, 1))
		require.NoError(t, err)
		spec := poolSpec(e, 1)
		spec.IdempotencyToken = "other"
		_, err = e.c.CreateInstanceGroup(ctx, spec)
		require.ErrorIs(t, err, cloud.ErrQuotaExceeded)
		assert.Contains(t, err.Error(), "1 of 1 InstanceGroup resources in use")
		assert.Equal(t, 1, e.c.Count(cloud.KindInstance))
	})
}

func TestInstanceGroupPendingInstances(t *testing.T) {
	ctx := t.Context()
	e, g := newPool(t, 2, cloud.WithPendingGets(2))
	states := func(g *cloud.InstanceGroup) []cloud.InstanceState {
		var out []cloud.InstanceState
		for _, gi := range g.Instances {
			out = append(out, gi.State)
		}
		return out
	}
	pending := []cloud.InstanceState{cloud.InstancePending, cloud.InstancePending}
	assert.Equal(t, pending, states(g))
	found, err := e.c.FindInstanceGroups(ctx, poolTags)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, pending, states(&found[0]), "Find does not advance the state")

	assert.Equal(t, pending, states(getGroup(t, e.c, g.ID)))
	assert.Equal(t, pending, states(getGroup(t, e.c, g.ID)))
	assert.Equal(t, []cloud.InstanceState{cloud.InstanceRunning, cloud.InstanceRunning}, states(getGroup(t, e.c, g.ID)))

	// A new instance is pending while the old ones run; GetInstance advances it too.
	scaled, err := e.c.ScaleInstanceGroup(ctx, g.ID, 3)
	require.NoError(t, err)
	assert.Equal(t, []cloud.InstanceState{cloud.InstanceRunning, cloud.InstanceRunning, cloud.InstancePending}, states(scaled))
	_, err = e.c.GetInstance(ctx, scaled.Instances[2].ID)
	require.NoError(t, err)
	assert.Equal(t, cloud.InstancePending, getGroup(t, e.c, g.ID).Instances[2].State)
	assert.Equal(t, cloud.InstanceRunning, getGroup(t, e.c, g.ID).Instances[2].State)

	require.NoError(t, e.c.SetInstanceState(scaled.Instances[0].ID, cloud.InstanceFailed))
	assert.Equal(t, cloud.InstanceFailed, getGroup(t, e.c, g.ID).Instances[0].State, "the group shows its instances' states")
}

func TestUpdateInstanceGroupUserData(t *testing.T) {
	ctx := t.Context()
	e, g := newPool(t, 2)
	rotated := []byte("#cloud-config\njoin-token: secret-2\n")
	require.NoError(t, e.c.UpdateInstanceGroupUserData(ctx, g.ID, rotated))
	data, err := e.c.InstanceGroupUserData(g.ID)
	require.NoError(t, err)
	assert.Equal(t, rotated, data)
	rotated[0] = 'X'
	data[1] = 'Y'
	data, err = e.c.InstanceGroupUserData(g.ID)
	require.NoError(t, err)
	assert.Equal(t, "#cloud-config\njoin-token: secret-2\n", string(data), "neither the request nor the inspection aliases the cloud's state")

	scaled, err := e.c.ScaleInstanceGroup(ctx, g.ID, 3)
	require.NoError(t, err)
	for n, gi := range scaled.Instances {
		data, err := e.c.InstanceUserData(gi.ID)
		require.NoError(t, err)
		want := "secret-1"
		if n == 2 {
			want = "secret-2"
		}
		assert.Contains(t, string(data), want, "instance %d", n)
	}

	s := e.c.Calls()
	assert.Equal(t, 1, s.Of(cloud.VerbUpdate, cloud.KindInstanceGroup))
	assert.Equal(t, 2, s.Updated[cloud.KindInstanceGroup], "the update and the scale")
	require.NoError(t, e.c.UpdateInstanceGroupUserData(ctx, g.ID, data))
	assert.Equal(t, 2, e.c.Calls().Updated[cloud.KindInstanceGroup], "the same data changes nothing")
}

func TestUpdateInstanceGroupUserDataRejects(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name    string
		id      func(e env, g *cloud.InstanceGroup) string
		data    []byte
		wantIs  error
		wantMsg string
	}{
		{name: "too large", data: []byte(strings.Repeat("S", 5)), wantIs: cloud.ErrInvalidParameter,
			wantMsg: `: invalid parameter: userData "5 bytes" must be at most 4 bytes`},
		{name: "not a group ID", id: func(e env, _ *cloud.InstanceGroup) string { return e.subnet.ID }, data: []byte("S"),
			wantIs: cloud.ErrInvalidParameter, wantMsg: `is not an instance group ID (want prefix "ig-")`},
		{name: "unknown group", id: func(env, *cloud.InstanceGroup) string { return "ig-00000000" }, data: []byte("S"),
			wantIs: cloud.ErrNotFound, wantMsg: `cannot update the user data of instance group "ig-00000000": resource not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, cloud.WithMaxUserDataSize(4))
			spec := poolSpec(e, 1)
			spec.UserData = []byte("ok")
			g, err := e.c.CreateInstanceGroup(ctx, spec)
			require.NoError(t, err)
			id := g.ID
			if tt.id != nil {
				id = tt.id(e, g)
			}
			err = e.c.UpdateInstanceGroupUserData(ctx, id, tt.data)
			require.ErrorIs(t, err, tt.wantIs)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.NotContains(t, err.Error(), "SS", "user data never appears in errors")
			data, err := e.c.InstanceGroupUserData(g.ID)
			require.NoError(t, err)
			assert.Equal(t, "ok", string(data), "unchanged")
		})
	}
	_, err := memcloudtest.NewCloud(t).InstanceGroupUserData("ig-00000000")
	require.ErrorIs(t, err, cloud.ErrNotFound)
	assert.Contains(t, err.Error(), `cannot get user data of instance group "ig-00000000"`)
}

func TestUpdateInstanceGroupUserDataFaults(t *testing.T) {
	for _, mode := range []cloud.FaultMode{cloud.BeforeChange, cloud.AfterChange} {
		t.Run(mode.String(), func(t *testing.T) {
			e, g := newPool(t, 1)
			require.NoError(t, e.c.FailNext(updateIG, mode))
			err := e.c.UpdateInstanceGroupUserData(t.Context(), g.ID, []byte("secret-2"))
			require.ErrorIs(t, err, cloud.ErrInjected)
			assert.Contains(t, err.Error(), "injected fault in UpdateInstanceGroup")
			assert.NotContains(t, err.Error(), "secret")
			data, err := e.c.InstanceGroupUserData(g.ID)
			require.NoError(t, err)
			assert.Equal(t, mode == cloud.AfterChange, string(data) == "secret-2")
		})
	}
}

func TestDeleteInstanceGroup(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	owned := map[string]string{"capkit.io/cluster": "c1"}
	spec := poolSpec(e, 3)
	spec.Tags = owned
	g, err := e.c.CreateInstanceGroup(ctx, spec)
	require.NoError(t, err)
	lb, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "api", NetworkID: e.net.ID})
	require.NoError(t, err)
	for _, gi := range g.Instances {
		require.NoError(t, e.c.RegisterTarget(ctx, lb.ID, gi.ID))
	}
	owner := cloud.OwnerTagValue("capkit.io/cluster")
	assert.Len(t, e.c.Leaks(owner, "c1"), 4, "the group and its instances")

	// Scaling down deregisters the deleted instances.
	_, err = e.c.ScaleInstanceGroup(ctx, g.ID, 2)
	require.NoError(t, err)
	got, err := e.c.GetLoadBalancer(ctx, lb.ID)
	require.NoError(t, err)
	assert.ElementsMatch(t, memberIDs(g)[:2], got.Targets)

	e.c.ResetCounters()
	require.NoError(t, e.c.DeleteInstanceGroup(ctx, g.ID))
	assert.Empty(t, e.c.Leaks(owner, "c1"), "nothing leaked")
	assert.Empty(t, e.c.Report(owner).ByOwner)
	assert.Zero(t, e.c.Count(cloud.KindInstanceGroup))
	assert.Zero(t, e.c.Count(cloud.KindInstance))
	got, err = e.c.GetLoadBalancer(ctx, lb.ID)
	require.NoError(t, err)
	assert.Empty(t, got.Targets, "the instances were deregistered")
	assert.Equal(t, map[cloud.Kind]int{cloud.KindInstanceGroup: 1, cloud.KindInstance: 2}, e.c.Calls().Deleted)
	for _, gi := range g.Instances {
		_, err := e.c.GetInstance(ctx, gi.ID)
		require.ErrorIs(t, err, cloud.ErrNotFound)
	}
	_, err = e.c.GetInstanceGroup(ctx, g.ID)
	require.ErrorIs(t, err, cloud.ErrNotFound)
	_, err = e.c.ScaleInstanceGroup(ctx, g.ID, 1)
	require.ErrorIs(t, err, cloud.ErrNotFound)
	require.ErrorIs(t, e.c.UpdateInstanceGroupUserData(ctx, g.ID, nil), cloud.ErrNotFound)
	err = e.c.DeleteInstanceGroup(ctx, g.ID)
	require.ErrorIs(t, err, cloud.ErrNotFound)
	assert.Contains(t, err.Error(), fmt.Sprintf("cannot delete instance group %q", g.ID))

	// What the group used can go now.
	require.NoError(t, e.c.DeleteLoadBalancer(ctx, lb.ID))
	require.NoError(t, e.c.DeleteSecurityGroup(ctx, e.sg.ID))
	require.NoError(t, e.c.DeleteSubnet(ctx, e.subnet.ID))
	require.NoError(t, e.c.DeleteNetwork(ctx, e.net.ID))
	assert.Empty(t, e.c.All())
}

func TestDeleteInstanceGroupLostResponse(t *testing.T) {
	ctx := t.Context()
	e, g := newPool(t, 2)
	require.NoError(t, e.c.FailNext(cloud.VerbDelete.On(cloud.KindInstanceGroup), cloud.AfterChange))
	require.ErrorIs(t, e.c.DeleteInstanceGroup(ctx, g.ID), cloud.ErrInjected)
	assert.Empty(t, e.c.List(cloud.KindInstance), "the lost call deleted the instances")
	require.ErrorIs(t, e.c.DeleteInstanceGroup(ctx, g.ID), cloud.ErrNotFound, "the retry sees the delete done")
}

func TestInstanceGroupDependencies(t *testing.T) {
	ctx := context.Background()
	e, g := newPool(t, 0)
	tests := []struct {
		name string
		del  func() error
	}{
		{"subnet", func() error { return e.c.DeleteSubnet(ctx, e.subnet.ID) }},
		{"security group", func() error { return e.c.DeleteSecurityGroup(ctx, e.sg.ID) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.del()
			require.ErrorIs(t, err, cloud.ErrDependencyViolation, "even an empty group holds its subnet and security groups")
			assert.Contains(t, err.Error(), fmt.Sprintf(`still used by instance group %q`, g.ID))
		})
	}
	scaled, err := e.c.ScaleInstanceGroup(ctx, g.ID, 1)
	require.NoError(t, err)
	err = e.c.DeleteSubnet(ctx, e.subnet.ID)
	require.ErrorIs(t, err, cloud.ErrDependencyViolation)
	assert.Contains(t, err.Error(), fmt.Sprintf(`still used by instance group %q, instance %q`, g.ID, scaled.Instances[0].ID))
	require.NoError(t, e.c.DeleteInstanceGroup(ctx, g.ID))
	require.NoError(t, e.c.DeleteSecurityGroup(ctx, e.sg.ID))
	require.NoError(t, e.c.DeleteSubnet(ctx, e.subnet.ID))
}

func TestInstanceGroupInvalidParameters(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name   string
		change func(e env, s *cloud.InstanceGroupSpec)
		want   string
	}{
		{"negative size", func(_ env, s *cloud.InstanceGroupSpec) { s.Size = -1 }, `size "-1" must be from 0 to 1000`},
		{"size too large", func(_ env, s *cloud.InstanceGroupSpec) { s.Size = 1001 }, `size "1001" must be from 0 to 1000`},
		{"empty name", func(_ env, s *cloud.InstanceGroupSpec) { s.Name = "" }, `name "" must not be empty`},
		{"no image", func(_ env, s *cloud.InstanceGroupSpec) { s.Image = "" }, `image "" must not be empty`},
		{"no flavor", func(_ env, s *cloud.InstanceGroupSpec) { s.Flavor = "" }, `flavor "" must not be empty`},
		{"unknown flavor", func(_ env, s *cloud.InstanceGroupSpec) { s.Flavor = "huge" }, `flavor "huge" is not a flavor of this cloud`},
		{"unknown subnet", func(_ env, s *cloud.InstanceGroupSpec) { s.SubnetID = "subnet-00000000" }, `subnetID "subnet-00000000" does not exist`},
		{"network as subnet", func(e env, s *cloud.InstanceGroupSpec) { s.SubnetID = e.net.ID }, `is not a subnet ID`},
		{"security group listed twice", func(e env, s *cloud.InstanceGroupSpec) { s.SecurityGroupIDs = []string{e.sg.ID, e.sg.ID} },
			`securityGroupIDs[1] "sg-`},
		{"user data too large", func(_ env, s *cloud.InstanceGroupSpec) {
			s.UserData = []byte(strings.Repeat("S", cloud.DefaultMaxUserDataSize+1))
		}, `userData "16385 bytes" must be at most 16384 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			spec := poolSpec(e, 2)
			tt.change(e, &spec)
			_, err := e.c.CreateInstanceGroup(ctx, spec)
			require.ErrorIs(t, err, cloud.ErrInvalidParameter)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "SSSS", "user data never appears in errors")
			assert.NotContains(t, err.Error(), "secret")
			assert.Empty(t, e.c.List(cloud.KindInstanceGroup))
			assert.Empty(t, e.c.List(cloud.KindInstance))
		})
	}

	e, g := newPool(t, 1)
	for _, tc := range []struct {
		id   string
		size int
		want string
	}{
		{g.ID, -1, `size "-1" must be from 0 to 1000`},
		{g.ID, 1001, `size "1001" must be from 0 to 1000`},
		{"", 1, `id "" must not be empty`},
		{e.subnet.ID, 1, `id "` + e.subnet.ID + `" is not an instance group ID (want prefix "ig-")`},
	} {
		_, err := e.c.ScaleInstanceGroup(ctx, tc.id, tc.size)
		require.ErrorIs(t, err, cloud.ErrInvalidParameter)
		assert.Contains(t, err.Error(), fmt.Sprintf("cannot scale instance group %q to %d: invalid parameter: %s", tc.id, tc.size, tc.want))
	}
	assertConsistent(t, e.c, g.ID, 1)
}

func TestInstanceGroupOps(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	for _, op := range []cloud.Op{scaleIG, updateIG, cloud.VerbCreate.On(cloud.KindInstanceGroup), cloud.VerbFind.On(cloud.KindInstanceGroup)} {
		require.NoError(t, c.FailNext(op, cloud.BeforeChange), op)
	}
	for _, op := range []cloud.Op{cloud.VerbScale.On(cloud.KindInstance), cloud.VerbRegister.On(cloud.KindInstanceGroup), cloud.Verb("Reboot").On(cloud.KindInstanceGroup)} {
		require.ErrorIs(t, c.FailNext(op, cloud.BeforeChange), cloud.ErrInvalidParameter, op)
	}
	require.NoError(t, c.SetFaults(cloud.FaultConfig{Ops: []cloud.Op{scaleIG}}))
	assert.Equal(t, "ScaleInstanceGroup", scaleIG.String())
	assert.True(t, scaleIG.Mutating())
}

func TestInstanceGroupReturnsCopies(t *testing.T) {
	e, g := newPool(t, 2)
	g.Tags["role"] = "changed"
	g.SecurityGroupIDs[0] = "sg-other"
	g.Instances[0].ID = "i-other"
	got := getGroup(t, e.c, g.ID)
	assert.Equal(t, poolTags, got.Tags)
	assert.Equal(t, []string{e.sg.ID}, got.SecurityGroupIDs)
	assert.NotEqual(t, "i-other", got.Instances[0].ID)
}

func TestInstanceGroupSearch(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t, cloud.WithFaults(cloud.FaultConfig{SearchLag: 1}))
	g, err := e.c.CreateInstanceGroup(ctx, poolSpec(e, 2))
	require.NoError(t, err)
	byGroup := map[string]string{cloud.TagInstanceGroup: g.ID}
	var got []int
	for range 2 {
		found, err := e.c.FindInstances(ctx, byGroup)
		require.NoError(t, err)
		got = append(got, len(found))
	}
	assert.Equal(t, []int{0, 2}, got, "a group's instances are subject to search lag like any instance")
	found, err := findIDs(e.c.FindInstances(ctx, poolTags))
	require.NoError(t, err)
	assert.Equal(t, memberIDs(g), found, "instances carry the group's tags")
}

func TestDuplicatesIgnoreGroupInstances(t *testing.T) {
	ctx := t.Context()
	e, _ := newPool(t, 3)
	owner := cloud.OwnerTagValue("capkit.io/cluster")
	assert.Empty(t, e.c.Duplicates(owner, "role"), "a group's instances share its role by design")
	assert.Empty(t, e.c.Duplicates(nil, ""))

	spec := poolSpec(e, 1)
	spec.IdempotencyToken = "pool-again"
	dup, err := e.c.CreateInstanceGroup(ctx, spec)
	require.NoError(t, err)
	dups := e.c.Duplicates(owner, "role")
	require.Len(t, dups, 1, "two groups with one role are duplicates")
	assert.Equal(t, cloud.KindInstanceGroup, dups[0].Kind)
	assert.Equal(t, dup.ID, dups[0].IDs[1])
}

// TestConcurrentScales races reconcilers scaling one group, under faults: whatever the order,
// the group ends with exactly Size instances, all tagged, with distinct addresses.
func TestConcurrentScales(t *testing.T) {
	ctx := context.Background()
	e, g := newPool(t, 3, cloud.WithPendingGets(1), cloud.WithQuota(cloud.KindInstance, 40))
	require.NoError(t, e.c.SetFaults(cloud.FaultConfig{BeforeChange: 0.1, AfterChange: 0.1, Reads: true}))
	const workers = 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 0))
			for range 25 {
				switch r.IntN(4) {
				case 0:
					_, _ = e.c.GetInstanceGroup(ctx, g.ID)
				case 1:
					if inst := e.c.List(cloud.KindInstance); len(inst) > 0 {
						_ = e.c.DeleteInstance(ctx, inst[r.IntN(len(inst))].ID)
					}
				default:
					_, err := e.c.ScaleInstanceGroup(ctx, g.ID, r.IntN(30))
					if err != nil {
						assert.ErrorIs(t, err, cloud.ErrInjected)
					}
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, e.c.SetFaults(cloud.FaultConfig{}))
	size := getGroup(t, e.c, g.ID).Size
	_, err := e.c.ScaleInstanceGroup(ctx, g.ID, size)
	require.NoError(t, err)
	assertConsistent(t, e.c, g.ID, size)
	assert.Equal(t, size, e.c.Count(cloud.KindInstance))
	s := e.c.Calls()
	assert.Equal(t, 3+s.Created[cloud.KindInstance]-s.Deleted[cloud.KindInstance], size, "the counters add up")
	require.NoError(t, e.c.DeleteInstanceGroup(ctx, g.ID))
	assert.Zero(t, e.c.Count(cloud.KindInstance))
}
