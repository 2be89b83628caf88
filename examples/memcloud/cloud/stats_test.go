package cloud_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

func TestCallCounters(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	spec := cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", IdempotencyToken: "t", Tags: map[string]string{"a": "b"}}
	n, err := c.CreateNetwork(ctx, spec)
	require.NoError(t, err)
	_, err = c.CreateNetwork(ctx, spec) // replay: a call, not a creation
	require.NoError(t, err)
	_, err = c.GetNetwork(ctx, n.ID)
	require.NoError(t, err)
	_, err = c.FindNetworks(ctx, spec.Tags)
	require.NoError(t, err)
	_, err = c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: n.ID, CIDR: "bad"})
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	require.NoError(t, c.FailNext(cloud.VerbDelete.On(cloud.KindNetwork), cloud.AfterChange))
	require.ErrorIs(t, c.DeleteNetwork(ctx, n.ID), cloud.ErrInjected)
	require.ErrorIs(t, c.DeleteNetwork(ctx, n.ID), cloud.ErrNotFound)
	_ = c.Count(cloud.KindNetwork)
	_ = c.List(cloud.KindNetwork)
	_ = c.Report(cloud.OwnerTagValue("a"))

	s := c.Calls()
	assert.Equal(t, map[cloud.Op]int{
		cloud.VerbCreate.On(cloud.KindNetwork): 2,
		cloud.VerbGet.On(cloud.KindNetwork):    1,
		cloud.VerbFind.On(cloud.KindNetwork):   1,
		cloud.VerbCreate.On(cloud.KindSubnet):  1,
		cloud.VerbDelete.On(cloud.KindNetwork): 2,
	}, s.Calls)
	assert.Equal(t, 5, s.Mutations)
	assert.Equal(t, 2, s.Reads)
	assert.Equal(t, 7, s.Total())
	assert.Equal(t, 1, s.Faults)
	assert.Equal(t, 2, s.Of(cloud.VerbDelete, cloud.KindNetwork))
	assert.Equal(t, map[cloud.Kind]int{cloud.KindNetwork: 1}, s.Created)
	assert.Equal(t, map[cloud.Kind]int{cloud.KindNetwork: 1}, s.Deleted)

	s.Calls[cloud.VerbGet.On(cloud.KindNetwork)] = 100
	assert.Equal(t, 1, c.Calls().Of(cloud.VerbGet, cloud.KindNetwork), "Calls returns a copy")

	c.ResetCounters()
	assert.Zero(t, c.Calls().Total())
	assert.Empty(t, c.Calls().Created)
	assert.Equal(t, 1, c.TotalCreated(), "TotalCreated survives ResetCounters")
}
