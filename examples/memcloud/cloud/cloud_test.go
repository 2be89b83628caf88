package cloud_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name  string
		opt   cloud.Option
		field string
	}{
		{"before probability", cloud.WithFaults(cloud.FaultConfig{BeforeChange: 1.5}), `faults.beforeChange "1.5"`},
		{"after probability", cloud.WithFaults(cloud.FaultConfig{AfterChange: -0.1}), `faults.afterChange "-0.1"`},
		{"latency", cloud.WithFaults(cloud.FaultConfig{Latency: -time.Second}), `faults.latency "-1s"`},
		{"jitter", cloud.WithFaults(cloud.FaultConfig{Jitter: -time.Second}), `faults.jitter "-1s"`},
		{"search lag", cloud.WithFaults(cloud.FaultConfig{SearchLag: -1}), `faults.searchLag "-1"`},
		{"unknown op", cloud.WithFaults(cloud.FaultConfig{Ops: []cloud.Op{cloud.VerbRegister.On(cloud.KindNetwork)}}), `faults.ops[0] "RegisterNetwork"`},
		{"pending gets", cloud.WithPendingGets(-1), `pendingGets "-1"`},
		{"user data size", cloud.WithMaxUserDataSize(-1), `maxUserDataSize "-1"`},
		{"negative quota", cloud.WithQuota(cloud.KindSubnet, -2), `quota.Subnet "-2"`},
		{"unknown kind quota", cloud.WithQuota(cloud.Kind("Bucket"), 1), `quota kind "Bucket"`},
		{"no flavors", cloud.WithFlavors(), `flavors "" must not be empty`},
		{"empty flavor", cloud.WithFlavors("small", ""), `flavors "small," must not hold an empty flavor`},
		{"flavor twice", cloud.WithFlavors("small", "small"), `flavors "small,small" must not hold an empty flavor or a flavor twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := cloud.New(tt.opt)
			require.ErrorIs(t, err, cloud.ErrInvalidParameter)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.field)
			assert.True(t, strings.HasPrefix(err.Error(), "cannot create cloud: "), err.Error())
		})
	}
}

func TestNewIgnoresNilOptionsAndClock(t *testing.T) {
	c := memcloudtest.NewCloud(t, nil, cloud.WithClock(nil))
	n, err := c.CreateNetwork(t.Context(), cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
	assert.False(t, n.CreatedAt.IsZero())
}

func TestLifecycleOfEveryKind(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, m := range makers {
		t.Run(m.kind.String(), func(t *testing.T) {
			e := newEnv(t, cloud.WithClock(func() time.Time { return at }))
			tags := map[string]string{"owner": "c1", "role": "r"}
			id, err := m.create(ctx, e, req{name: "x", tags: tags})
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(id, m.kind.Prefix()), id)
			assert.Len(t, id, len(m.kind.Prefix())+8)

			require.NoError(t, m.get(ctx, e, id))
			found, err := m.find(ctx, e, map[string]string{"owner": "c1"})
			require.NoError(t, err)
			assert.Equal(t, []string{id}, found)
			res := e.c.List(m.kind)
			last := res[len(res)-1]
			assert.Equal(t, cloud.Resource{Kind: m.kind, ParentID: last.ParentID,
				Meta: cloud.Meta{ID: id, Name: "x", Tags: tags, CreatedAt: at}}, last)

			require.NoError(t, m.del(ctx, e, id))
			require.ErrorIs(t, m.get(ctx, e, id), cloud.ErrNotFound)
			err = m.del(ctx, e, id)
			require.ErrorIs(t, err, cloud.ErrNotFound, "a second delete reports not found")
			assert.Contains(t, err.Error(), `cannot delete `+kindNoun(m.kind)+` "`+id+`"`)
			found, err = m.find(ctx, e, map[string]string{"owner": "c1"})
			require.NoError(t, err)
			assert.Empty(t, found)
		})
	}
}

func kindNoun(k cloud.Kind) string {
	return map[cloud.Kind]string{cloud.KindNetwork: "network", cloud.KindSubnet: "subnet",
		cloud.KindSecurityGroup: "security group", cloud.KindLoadBalancer: "load balancer",
		cloud.KindInstanceGroup: "instance group", cloud.KindInstance: "instance"}[k]
}

func TestGetAndDeleteCheckIDs(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	for _, m := range makers {
		t.Run(m.kind.String(), func(t *testing.T) {
			for _, id := range []string{"", "bogus-1234"} {
				err := m.get(ctx, e, id)
				require.ErrorIs(t, err, cloud.ErrInvalidParameter)
				assert.Contains(t, err.Error(), `id "`+id+`"`)
				require.ErrorIs(t, m.del(ctx, e, id), cloud.ErrInvalidParameter)
			}
			require.ErrorIs(t, m.get(ctx, e, m.kind.Prefix()+"00000000"), cloud.ErrNotFound)
			require.ErrorIs(t, m.del(ctx, e, m.kind.Prefix()+"00000000"), cloud.ErrNotFound)
		})
	}
	// An ID of one kind given to another kind's method is a caller bug, not "not found".
	_, err := e.c.GetNetwork(ctx, e.subnet.ID)
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `is not a network ID (want prefix "net-")`)
}

func TestReturnedResourcesAreCopies(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	tags := map[string]string{"k": "v"}
	spec := cloud.SecurityGroupSpec{Name: "sg", NetworkID: e.net.ID, Tags: tags,
		Ingress: []cloud.Rule{{Protocol: "tcp", Port: 22, Source: "10.0.0.0/8"}}}
	sg, err := e.c.CreateSecurityGroup(ctx, spec)
	require.NoError(t, err)
	tags["k"] = "changed"
	spec.Ingress[0].Port = 23
	sg.Tags["k"] = "changed"
	sg.Ingress[0].Port = 24

	got, err := e.c.GetSecurityGroup(ctx, sg.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"k": "v"}, got.Tags)
	assert.Equal(t, 22, got.Ingress[0].Port)

	inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", SecurityGroupIDs: []string{sg.ID}})
	require.NoError(t, err)
	inst.SecurityGroupIDs[0] = "sg-other"
	found, err := e.c.FindInstances(ctx, map[string]string{})
	require.ErrorIs(t, err, cloud.ErrInvalidParameter, "an empty tag filter is rejected")
	assert.Nil(t, found)
	gotInst, err := e.c.GetInstance(ctx, inst.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{sg.ID}, gotInst.SecurityGroupIDs)

	lb, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "lb", NetworkID: e.net.ID})
	require.NoError(t, err)
	require.NoError(t, e.c.RegisterTarget(ctx, lb.ID, inst.ID))
	gotLB, err := e.c.GetLoadBalancer(ctx, lb.ID)
	require.NoError(t, err)
	gotLB.Targets[0] = "i-other"
	gotLB, err = e.c.GetLoadBalancer(ctx, lb.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{inst.ID}, gotLB.Targets)

	res := e.c.List(cloud.KindSecurityGroup)
	res[len(res)-1].Tags["k"] = "changed"
	assert.Equal(t, "v", e.c.List(cloud.KindSecurityGroup)[len(res)-1].Tags["k"])
}

func TestNilTagsBecomeEmptyMaps(t *testing.T) {
	n, err := memcloudtest.NewCloud(t).CreateNetwork(t.Context(), cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
	assert.NotNil(t, n.Tags)
	assert.Empty(t, n.Tags)
}

func TestDeterministicIDsWithSeed(t *testing.T) {
	ctx := context.Background()
	create := func(seed uint64) []string {
		c := memcloudtest.NewCloud(t, cloud.WithSeed(seed))
		var out []string
		for range 3 {
			n, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
			require.NoError(t, err)
			out = append(out, n.ID)
		}
		return out
	}
	a := create(7)
	assert.Equal(t, a, create(7))
	assert.NotEqual(t, a, create(8))
	assert.NotEqual(t, a[0], a[1])
}

func TestKindsAndOps(t *testing.T) {
	assert.Equal(t, []string{"net-", "subnet-", "sg-", "lb-", "ig-", "i-"}, func() []string {
		var p []string
		for _, k := range cloud.Kinds() {
			p = append(p, k.Prefix())
		}
		return p
	}())
	assert.Empty(t, cloud.Kind("Bucket").Prefix())
	assert.Equal(t, "CreateSecurityGroup", cloud.VerbCreate.On(cloud.KindSecurityGroup).String())
	for verb, mutating := range map[cloud.Verb]bool{cloud.VerbCreate: true, cloud.VerbDelete: true,
		cloud.VerbRegister: true, cloud.VerbDeregister: true, cloud.VerbUpdate: true, cloud.VerbScale: true,
		cloud.VerbResize: true, cloud.VerbTag: true, cloud.VerbGet: false, cloud.VerbFind: false, cloud.Verb("Reboot"): false} {
		assert.Equal(t, mutating, verb.On(cloud.KindLoadBalancer).Mutating(), verb)
	}
}

func TestNilContextIsRejected(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	var nilCtx context.Context
	_, err := c.CreateNetwork(nilCtx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `ctx "<nil>"`)
	assert.Zero(t, c.Count(cloud.KindNetwork))
}

func TestQuota(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t, cloud.WithQuota(cloud.KindNetwork, 1))
	n, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "a", CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
	_, err = c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "b", CIDR: "10.1.0.0/16"})
	require.ErrorIs(t, err, cloud.ErrQuotaExceeded)
	assert.Contains(t, err.Error(), "1 of 1 Network resources in use")
	require.NoError(t, c.DeleteNetwork(ctx, n.ID))
	_, err = c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "b", CIDR: "10.1.0.0/16"})
	require.NoError(t, err)
}
