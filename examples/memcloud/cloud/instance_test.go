package cloud_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

func TestInstanceAddresses(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	subnet := newSubnet(ctx, t, c, "10.0.0.16/28")
	create := func(i int) (*cloud.Instance, error) {
		return c.CreateInstance(ctx, cloud.InstanceSpec{Name: fmt.Sprint(i), SubnetID: subnet.ID, Image: "img", Flavor: "small"})
	}
	var insts []*cloud.Instance
	for i := range 11 { // a /28 has 16 addresses: 4 reserved at the start, 1 at the end
		inst, err := create(i)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("10.0.0.%d", 20+i), inst.PrivateIP)
		assert.Equal(t, subnet.NetworkID, inst.NetworkID)
		insts = append(insts, inst)
	}
	_, err := create(11)
	require.ErrorIs(t, err, cloud.ErrQuotaExceeded)
	assert.Contains(t, err.Error(), fmt.Sprintf("no free address in subnet %q", subnet.ID))

	require.NoError(t, c.DeleteInstance(ctx, insts[3].ID))
	require.NoError(t, c.DeleteInstance(ctx, insts[1].ID))
	again, err := create(12)
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.21", again.PrivateIP, "the lowest free address is reused")
}

func TestInstanceStates(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name        string
		pendingGets int
		want        []cloud.InstanceState // create, then each GetInstance
	}{
		{"running at once", 0, []cloud.InstanceState{cloud.InstanceRunning, cloud.InstanceRunning}},
		{"pending for one get", 1, []cloud.InstanceState{cloud.InstancePending, cloud.InstancePending, cloud.InstanceRunning, cloud.InstanceRunning}},
		{"pending for three gets", 3, []cloud.InstanceState{cloud.InstancePending, cloud.InstancePending, cloud.InstancePending, cloud.InstancePending, cloud.InstanceRunning}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, cloud.WithPendingGets(tt.pendingGets))
			inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", Tags: map[string]string{"a": "b"}})
			require.NoError(t, err)
			got := []cloud.InstanceState{inst.State}
			for range len(tt.want) - 1 {
				found, err := e.c.FindInstances(ctx, map[string]string{"a": "b"})
				require.NoError(t, err)
				require.Len(t, found, 1)
				assert.Equal(t, got[len(got)-1], found[0].State, "Find does not advance the state")
				inst, err = e.c.GetInstance(ctx, inst.ID)
				require.NoError(t, err)
				got = append(got, inst.State)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSetInstanceState(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t, cloud.WithPendingGets(5))
	inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small"})
	require.NoError(t, err)
	require.NoError(t, e.c.SetInstanceState(inst.ID, cloud.InstanceFailed))
	got, err := e.c.GetInstance(ctx, inst.ID)
	require.NoError(t, err)
	assert.Equal(t, cloud.InstanceFailed, got.State)

	require.NoError(t, e.c.SetInstanceState(inst.ID, cloud.InstancePending))
	got, err = e.c.GetInstance(ctx, inst.ID)
	require.NoError(t, err)
	assert.Equal(t, cloud.InstancePending, got.State, "pending again, for as many Gets as a new instance")

	err = e.c.SetInstanceState(inst.ID, "exploded")
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `state "exploded"`)
	require.ErrorIs(t, e.c.SetInstanceState("i-00000000", cloud.InstanceStopped), cloud.ErrNotFound)
	assert.Equal(t, 3, e.c.Calls().Total(), "one create and two gets: SetInstanceState is not counted")
}

func TestInstanceUserData(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	data := []byte("#!/bin/bash\necho hi\n")
	inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", UserData: data})
	require.NoError(t, err)
	data[0] = 'X'
	got, err := e.c.InstanceUserData(inst.ID)
	require.NoError(t, err)
	assert.Equal(t, "#!/bin/bash\necho hi\n", string(got))
	got[0] = 'Y'
	again, err := e.c.InstanceUserData(inst.ID)
	require.NoError(t, err)
	assert.Equal(t, byte('#'), again[0])

	require.NoError(t, e.c.DeleteInstance(ctx, inst.ID))
	_, err = e.c.InstanceUserData(inst.ID)
	require.ErrorIs(t, err, cloud.ErrNotFound)
}

func TestLoadBalancers(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	lb, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "api", NetworkID: e.net.ID})
	require.NoError(t, err)
	assert.Equal(t, lb.ID+".memcloud.local", lb.Host)
	assert.Equal(t, 6443, lb.Port)
	assert.Empty(t, lb.Targets)
	custom, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "web", NetworkID: e.net.ID, Port: 443})
	require.NoError(t, err)
	assert.Equal(t, 443, custom.Port)

	var ids []string
	for i := range 2 {
		inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: fmt.Sprint(i), SubnetID: e.subnet.ID, Image: "img", Flavor: "small"})
		require.NoError(t, err)
		ids = append(ids, inst.ID)
	}
	for _, id := range []string{ids[1], ids[0], ids[1]} {
		require.NoError(t, e.c.RegisterTarget(ctx, lb.ID, id), "registering twice succeeds")
	}
	targets := func() []string {
		got, err := e.c.GetLoadBalancer(ctx, lb.ID)
		require.NoError(t, err)
		return got.Targets
	}
	assert.ElementsMatch(t, ids, targets())
	assert.IsIncreasing(t, targets())

	require.NoError(t, e.c.DeregisterTarget(ctx, lb.ID, ids[0]))
	require.NoError(t, e.c.DeregisterTarget(ctx, lb.ID, ids[0]), "deregistering twice succeeds")
	require.NoError(t, e.c.DeregisterTarget(ctx, lb.ID, "i-00000000"), "deregistering an unknown instance succeeds")
	assert.Equal(t, []string{ids[1]}, targets())
	require.NoError(t, e.c.DeleteInstance(ctx, ids[1]))
	assert.Empty(t, targets(), "deleting an instance deregisters it")

	err = e.c.RegisterTarget(ctx, lb.ID, ids[1])
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), fmt.Sprintf(`cannot register instance %q with load balancer %q: invalid parameter: instanceID %q does not exist`, ids[1], lb.ID, ids[1]))
	err = e.c.RegisterTarget(ctx, "lb-00000000", ids[0])
	require.ErrorIs(t, err, cloud.ErrNotFound)
	err = e.c.DeregisterTarget(ctx, "lb-00000000", ids[0])
	require.ErrorIs(t, err, cloud.ErrNotFound)
	assert.Contains(t, err.Error(), "cannot deregister instance")
	require.ErrorIs(t, e.c.RegisterTarget(ctx, e.net.ID, ids[0]), cloud.ErrInvalidParameter)
	require.ErrorIs(t, e.c.RegisterTarget(ctx, lb.ID, e.sg.ID), cloud.ErrInvalidParameter)

	other, err := e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "other", CIDR: "10.1.0.0/16"})
	require.NoError(t, err)
	otherLB, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "other", NetworkID: other.ID})
	require.NoError(t, err)
	err = e.c.RegisterTarget(ctx, otherLB.ID, ids[0])
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), fmt.Sprintf("is in network %q, not in network %q of the load balancer", e.net.ID, other.ID))
}
