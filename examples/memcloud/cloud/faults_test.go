package cloud_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

func TestProbabilisticFaults(t *testing.T) {
	ctx := t.Context()
	tags := map[string]string{"a": "b"}
	tests := []struct {
		name        string
		faults      cloud.FaultConfig
		wantCreate  error
		wantApplied bool
		wantCreated int
		wantReadErr bool
	}{
		{"no faults", cloud.FaultConfig{}, nil, false, 1, false},
		{"always before", cloud.FaultConfig{BeforeChange: 1}, cloud.ErrInjected, false, 0, false},
		{"always after", cloud.FaultConfig{AfterChange: 1}, cloud.ErrInjected, true, 1, false},
		{"before on reads too", cloud.FaultConfig{BeforeChange: 1, Reads: true}, cloud.ErrInjected, false, 0, true},
		{"after never hits reads", cloud.FaultConfig{AfterChange: 1, Reads: true}, cloud.ErrInjected, true, 1, false},
		{"ops filter excludes create", cloud.FaultConfig{BeforeChange: 1, Ops: []cloud.Op{cloud.VerbDelete.On(cloud.KindNetwork)}}, nil, false, 1, false},
		{"ops filter selects a read", cloud.FaultConfig{BeforeChange: 1, Ops: []cloud.Op{cloud.VerbFind.On(cloud.KindNetwork)}}, nil, false, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := memcloudtest.NewCloud(t, cloud.WithFaults(tt.faults))
			_, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", Tags: tags})
			if tt.wantCreate == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.wantCreate)
				var fe *cloud.FaultError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, tt.wantApplied, fe.Applied)
				assert.Equal(t, cloud.VerbCreate.On(cloud.KindNetwork), fe.Op)
				assert.Contains(t, err.Error(), `cannot create network "n": injected fault in CreateNetwork`)
			}
			assert.Equal(t, tt.wantCreated, c.Count(cloud.KindNetwork))

			require.NoError(t, c.SetFaults(cloud.FaultConfig{}))
			found, err := c.FindNetworks(ctx, tags)
			require.NoError(t, err, "faults stop after SetFaults")
			require.Len(t, found, tt.wantCreated)

			require.NoError(t, c.SetFaults(tt.faults))
			_, err = c.FindNetworks(ctx, tags)
			assert.Equal(t, tt.wantReadErr, errors.Is(err, cloud.ErrInjected), err)
		})
	}
}

func TestFaultsOnDelete(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	n, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.NoError(t, err)

	require.NoError(t, c.FailNext(cloud.VerbDelete.On(cloud.KindNetwork), cloud.BeforeChange))
	require.ErrorIs(t, c.DeleteNetwork(ctx, n.ID), cloud.ErrInjected)
	assert.Equal(t, 1, c.Count(cloud.KindNetwork), "a fault before the change deletes nothing")

	require.NoError(t, c.FailNext(cloud.VerbDelete.On(cloud.KindNetwork), cloud.AfterChange))
	err = c.DeleteNetwork(ctx, n.ID)
	require.ErrorIs(t, err, cloud.ErrInjected)
	assert.Contains(t, err.Error(), "after the change was applied")
	assert.Zero(t, c.Count(cloud.KindNetwork), "a fault after the change deletes")
	require.ErrorIs(t, c.DeleteNetwork(ctx, n.ID), cloud.ErrNotFound, "the retry sees the delete done")
}

func TestFailNext(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	getNet := cloud.VerbGet.On(cloud.KindNetwork)
	require.NoError(t, e.c.FailNext(getNet, cloud.AfterChange))
	require.NoError(t, e.c.FailNext(getNet, cloud.BeforeChange))
	for i := range 2 {
		_, err := e.c.GetNetwork(ctx, e.net.ID)
		var fe *cloud.FaultError
		require.ErrorAs(t, err, &fe, "call %d", i)
		assert.False(t, fe.Applied, "a read never applies anything")
		assert.Contains(t, err.Error(), "before any change")
	}
	_, err := e.c.GetNetwork(ctx, e.net.ID)
	require.NoError(t, err, "the queue is empty")
	assert.Equal(t, 2, e.c.Calls().Faults)

	// Scripted faults come before probabilistic ones.
	require.NoError(t, e.c.SetFaults(cloud.FaultConfig{BeforeChange: 1}))
	require.NoError(t, e.c.FailNext(cloud.VerbCreate.On(cloud.KindNetwork), cloud.AfterChange))
	_, err = e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.1.0.0/16"})
	var fe *cloud.FaultError
	require.ErrorAs(t, err, &fe)
	assert.True(t, fe.Applied)
	assert.Equal(t, 2, e.c.Count(cloud.KindNetwork))
	require.NoError(t, e.c.SetFaults(cloud.FaultConfig{}))

	err = e.c.FailNext(cloud.VerbFind.On(cloud.Kind("Bucket")), cloud.BeforeChange)
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `op "FindBucket"`)
	err = e.c.FailNext(getNet, cloud.FaultMode(7))
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `mode "FaultMode(7)"`)
	assert.Equal(t, "AfterChange", cloud.AfterChange.String())
}

func TestFaultOnRegisterTarget(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	lb, err := e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "lb", NetworkID: e.net.ID})
	require.NoError(t, err)
	inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small"})
	require.NoError(t, err)
	require.NoError(t, e.c.FailNext(cloud.VerbRegister.On(cloud.KindLoadBalancer), cloud.AfterChange))
	require.ErrorIs(t, e.c.RegisterTarget(ctx, lb.ID, inst.ID), cloud.ErrInjected)
	got, err := e.c.GetLoadBalancer(ctx, lb.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{inst.ID}, got.Targets, "the registration was applied")

	require.NoError(t, e.c.FailNext(cloud.VerbDeregister.On(cloud.KindLoadBalancer), cloud.BeforeChange))
	require.ErrorIs(t, e.c.DeregisterTarget(ctx, lb.ID, inst.ID), cloud.ErrInjected)
	got, err = e.c.GetLoadBalancer(ctx, lb.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{inst.ID}, got.Targets, "nothing was deregistered")
}

func TestFaultsAreDeterministicForASeed(t *testing.T) {
	ctx := context.Background()
	run := func(seed uint64) []string {
		c := memcloudtest.NewCloud(t, cloud.WithSeed(seed), cloud.WithFaults(cloud.FaultConfig{BeforeChange: 0.3, AfterChange: 0.3}))
		var out []string
		for i := range 40 {
			n, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", IdempotencyToken: fmt.Sprint(i % 10)})
			switch {
			case err != nil:
				out = append(out, err.Error())
			default:
				out = append(out, n.ID)
			}
		}
		return out
	}
	a := run(3)
	assert.Equal(t, a, run(3))
	assert.NotEqual(t, a, run(4))
	var before, after int
	for _, s := range a {
		switch {
		case strings.HasPrefix(s, "net-"):
		case strings.Contains(s, "before any change"):
			before++
		case strings.Contains(s, "after the change"):
			after++
		}
	}
	assert.Positive(t, before)
	assert.Positive(t, after)
}

func TestContextCancellation(t *testing.T) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	c := memcloudtest.NewCloud(t)
	_, err := c.CreateNetwork(cancelled, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, c.Count(cloud.KindNetwork))

	// A long injected latency gives way to the caller's deadline and changes nothing.
	require.NoError(t, c.SetFaults(cloud.FaultConfig{Latency: time.Hour, Jitter: time.Hour}))
	short, cancelShort := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancelShort()
	_, err = c.CreateNetwork(short, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Zero(t, c.Count(cloud.KindNetwork))
	assert.Equal(t, 2, c.Calls().Of(cloud.VerbCreate, cloud.KindNetwork))
}

func TestLatencyDelaysButSucceeds(t *testing.T) {
	c := memcloudtest.NewCloud(t, cloud.WithFaults(cloud.FaultConfig{Latency: time.Microsecond, Jitter: time.Microsecond}))
	_, err := c.CreateNetwork(t.Context(), cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
}

func TestSetFaults(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	err := c.SetFaults(cloud.FaultConfig{AfterChange: 2})
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `cannot set faults: invalid parameter: faults.afterChange "2"`)
	assert.Equal(t, cloud.FaultConfig{}, c.Faults(), "a rejected config changes nothing")

	ops := []cloud.Op{cloud.VerbCreate.On(cloud.KindInstance)}
	require.NoError(t, c.SetFaults(cloud.FaultConfig{BeforeChange: 0.5, Ops: ops, SearchLag: 2}))
	ops[0] = cloud.VerbDelete.On(cloud.KindInstance)
	got := c.Faults()
	assert.Equal(t, cloud.FaultConfig{BeforeChange: 0.5, Ops: []cloud.Op{cloud.VerbCreate.On(cloud.KindInstance)}, SearchLag: 2}, got)
}
