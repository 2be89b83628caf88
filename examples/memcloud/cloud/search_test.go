package cloud_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

func TestFindMatchesAllTags(t *testing.T) {
	ctx := context.Background()
	c := memcloudtest.NewCloud(t)
	mk := func(name, cidr string, tags map[string]string) string {
		n, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: name, CIDR: cidr, Tags: tags})
		require.NoError(t, err)
		return n.ID
	}
	a := mk("a", "10.0.0.0/16", map[string]string{"owner": "c1", "role": "vpc"})
	b := mk("b", "10.1.0.0/16", map[string]string{"owner": "c1", "role": "other"})
	mk("c", "10.2.0.0/16", map[string]string{"owner": "c2", "role": "vpc"})
	mk("d", "10.3.0.0/16", nil)

	tests := []struct {
		name string
		tags map[string]string
		want []string
	}{
		{"one tag, creation order", map[string]string{"owner": "c1"}, []string{a, b}},
		{"all tags must match", map[string]string{"owner": "c1", "role": "vpc"}, []string{a}},
		{"value must match", map[string]string{"owner": "c3"}, []string{}},
		{"empty value matches only empty values", map[string]string{"owner": ""}, []string{}},
		{"unknown key", map[string]string{"zone": "x"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findIDs(c.FindNetworks(ctx, tt.tags))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := c.FindNetworks(ctx, nil)
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `cannot find networks with tags "":`)
}

func TestSearchLag(t *testing.T) {
	ctx := t.Context()
	tags := map[string]string{"owner": "c1"}
	tests := []struct {
		name string
		lag  int
		want []int // found per Find call after the create
	}{
		{"consistent", 0, []int{1, 1}},
		{"one find", 1, []int{0, 1, 1}},
		{"three finds", 3, []int{0, 0, 0, 1}},
	}
	for _, m := range makers {
		for _, tt := range tests {
			t.Run(m.kind.String()+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t)
				require.NoError(t, e.c.SetFaults(cloud.FaultConfig{SearchLag: tt.lag}))
				id, err := m.create(ctx, e, req{name: "x", tags: tags})
				require.NoError(t, err)
				var got []int
				for range tt.want {
					require.NoError(t, m.get(ctx, e, id), "Get sees new resources at once")
					found, err := m.find(ctx, e, tags)
					require.NoError(t, err)
					got = append(got, len(found))
				}
				assert.Equal(t, tt.want, got)
			})
		}
	}
}

func TestSearchLagIsPerKindAndPerResource(t *testing.T) {
	ctx := t.Context()
	tags := map[string]string{"owner": "c1"}
	e := newEnv(t, cloud.WithFaults(cloud.FaultConfig{SearchLag: 1}))
	n, err := e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.1.0.0/16", Tags: tags})
	require.NoError(t, err)
	for range 3 {
		_, err := e.c.FindSubnets(ctx, tags)
		require.NoError(t, err)
	}
	found, err := e.c.FindNetworks(ctx, tags)
	require.NoError(t, err)
	assert.Empty(t, found, "finds of another kind do not advance the lag")

	// Lag set later applies to resources created later only.
	require.NoError(t, e.c.SetFaults(cloud.FaultConfig{SearchLag: 5}))
	_, err = e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "m", CIDR: "10.2.0.0/16", Tags: tags})
	require.NoError(t, err)
	got, err := findIDs(e.c.FindNetworks(ctx, tags))
	require.NoError(t, err)
	assert.Equal(t, []string{n.ID}, got)
	assert.Len(t, e.c.List(cloud.KindNetwork), 3, "List ignores the lag")
}

func TestFaultedFindDoesNotAdvanceLag(t *testing.T) {
	ctx := t.Context()
	tags := map[string]string{"owner": "c1"}
	c := memcloudtest.NewCloud(t, cloud.WithFaults(cloud.FaultConfig{SearchLag: 1}))
	_, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.1.0.0/16", Tags: tags})
	require.NoError(t, err)
	require.NoError(t, c.FailNext(cloud.VerbFind.On(cloud.KindNetwork), cloud.BeforeChange))
	_, err = c.FindNetworks(ctx, tags)
	require.ErrorIs(t, err, cloud.ErrInjected)
	found, err := c.FindNetworks(ctx, tags)
	require.NoError(t, err)
	assert.Empty(t, found)
}
