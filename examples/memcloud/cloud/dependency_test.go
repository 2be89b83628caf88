package cloud_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

func TestDependencyViolations(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	lb, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "lb", NetworkID: e.net.ID})
	require.NoError(t, err)
	inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", SecurityGroupIDs: []string{e.sg.ID}})
	require.NoError(t, err)
	require.NoError(t, e.c.RegisterTarget(ctx, lb.ID, inst.ID))

	steps := []struct {
		name    string
		del     func() error
		wantErr error
		want    string
	}{
		{"network with subnet, group and load balancer", func() error { return e.c.DeleteNetwork(ctx, e.net.ID) }, cloud.ErrDependencyViolation,
			fmt.Sprintf(`still used by subnet %q, security group %q, load balancer %q`, e.subnet.ID, e.sg.ID, lb.ID)},
		{"subnet with instance", func() error { return e.c.DeleteSubnet(ctx, e.subnet.ID) }, cloud.ErrDependencyViolation,
			fmt.Sprintf(`still used by instance %q`, inst.ID)},
		{"security group used by instance", func() error { return e.c.DeleteSecurityGroup(ctx, e.sg.ID) }, cloud.ErrDependencyViolation,
			fmt.Sprintf(`still used by instance %q`, inst.ID)},
		{"load balancer with targets", func() error { return e.c.DeleteLoadBalancer(ctx, lb.ID) }, nil, ""},
		{"instance", func() error { return e.c.DeleteInstance(ctx, inst.ID) }, nil, ""},
		{"subnet once empty", func() error { return e.c.DeleteSubnet(ctx, e.subnet.ID) }, nil, ""},
		{"network still has a group", func() error { return e.c.DeleteNetwork(ctx, e.net.ID) }, cloud.ErrDependencyViolation,
			fmt.Sprintf(`still used by security group %q`, e.sg.ID)},
		{"security group once unused", func() error { return e.c.DeleteSecurityGroup(ctx, e.sg.ID) }, nil, ""},
		{"network once empty", func() error { return e.c.DeleteNetwork(ctx, e.net.ID) }, nil, ""},
	}
	for _, s := range steps {
		err := s.del()
		if s.wantErr == nil {
			require.NoError(t, err, s.name)
			continue
		}
		require.ErrorIs(t, err, s.wantErr, s.name)
		assert.Contains(t, err.Error(), s.want, s.name)
	}
	assert.Empty(t, e.c.All())
}

func TestDependencyViolationNamesAtMostThree(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	for i := range 4 {
		_, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: fmt.Sprint(i), SubnetID: e.subnet.ID, Image: "img", Flavor: "small"})
		require.NoError(t, err)
	}
	err := e.c.DeleteSubnet(ctx, e.subnet.ID)
	require.ErrorIs(t, err, cloud.ErrDependencyViolation)
	assert.Contains(t, err.Error(), " and 1 more")
	assert.Equal(t, 4, e.c.Count(cloud.KindInstance))
}
