package cloud_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// reportCloud has two clusters' networks plus shared and untagged ones.
func reportCloud(t *testing.T) (*cloud.Cloud, map[string]string) {
	t.Helper()
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	ids := map[string]string{}
	for _, n := range []struct {
		name string
		tags map[string]string
	}{
		{"a-vpc", map[string]string{"capkit.io/cluster": "a", "capkit.io/cluster-a": "owned", "role": "vpc"}},
		{"a-vpc", map[string]string{"capkit.io/cluster": "a", "capkit.io/cluster-a": "owned", "role": "vpc"}},
		{"a-extra", map[string]string{"capkit.io/cluster": "a", "capkit.io/cluster-a": "owned", "role": "extra"}},
		{"a-untagged-role", map[string]string{"capkit.io/cluster": "a", "capkit.io/cluster-a": "owned"}},
		{"b-vpc", map[string]string{"capkit.io/cluster": "b", "capkit.io/cluster-b": "owned", "role": "vpc"}},
		{"shared", map[string]string{"capkit.io/cluster-b": "shared", "role": "vpc"}},
		{"plain", nil},
	} {
		net, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: n.name, CIDR: "10.0.0.0/16", Tags: n.tags})
		require.NoError(t, err)
		if _, seen := ids[n.name]; !seen {
			ids[n.name] = net.ID
		} else {
			ids[n.name+"#2"] = net.ID
		}
	}
	return c, ids
}

func resIDs(rs []cloud.Resource) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestReport(t *testing.T) {
	c, ids := reportCloud(t)
	tests := []struct {
		name        string
		owner       cloud.Owner
		wantOwners  map[string][]string
		wantUnowned []string
	}{
		{"owner in the tag value", cloud.OwnerTagValue("capkit.io/cluster"),
			map[string][]string{
				"a": {ids["a-vpc"], ids["a-vpc#2"], ids["a-extra"], ids["a-untagged-role"]},
				"b": {ids["b-vpc"]},
			},
			[]string{ids["shared"], ids["plain"]}},
		{"owner in the tag key, owned only", cloud.OwnerTagKeyPrefix("capkit.io/cluster-", "owned"),
			map[string][]string{
				"a": {ids["a-vpc"], ids["a-vpc#2"], ids["a-extra"], ids["a-untagged-role"]},
				"b": {ids["b-vpc"]},
			},
			[]string{ids["shared"], ids["plain"]}},
		{"owner in the tag key, any value", cloud.OwnerTagKeyPrefix("capkit.io/cluster-"),
			map[string][]string{
				"a": {ids["a-vpc"], ids["a-vpc#2"], ids["a-extra"], ids["a-untagged-role"]},
				"b": {ids["b-vpc"], ids["shared"]},
			},
			[]string{ids["plain"]}},
		{"nil owner", nil, map[string][]string{},
			[]string{ids["a-vpc"], ids["a-vpc#2"], ids["a-extra"], ids["a-untagged-role"], ids["b-vpc"], ids["shared"], ids["plain"]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Report(tt.owner)
			got := map[string][]string{}
			for o, rs := range r.ByOwner {
				got[o] = resIDs(rs)
			}
			assert.Equal(t, tt.wantOwners, got)
			assert.Equal(t, tt.wantUnowned, resIDs(r.Unowned))
			assert.Equal(t, 7, r.Total())
		})
	}
	assert.Equal(t, []string{ids["b-vpc"]}, resIDs(c.Leaks(cloud.OwnerTagValue("capkit.io/cluster"), "b")))
	assert.Empty(t, c.Leaks(cloud.OwnerTagValue("capkit.io/cluster"), "gone"))
}

func TestReportString(t *testing.T) {
	assert.Equal(t, "no resources\n", memcloudtest.NewCloud(t).Report(nil).String())
	c, ids := reportCloud(t)
	s := c.Report(cloud.OwnerTagKeyPrefix("capkit.io/cluster-", "owned")).String()
	assert.Equal(t, `owner "a": 4 resource(s)
  Network `+ids["a-vpc"]+` "a-vpc"
  Network `+ids["a-vpc#2"]+` "a-vpc"
  Network `+ids["a-extra"]+` "a-extra"
  Network `+ids["a-untagged-role"]+` "a-untagged-role"
owner "b": 1 resource(s)
  Network `+ids["b-vpc"]+` "b-vpc"
unowned: 2 resource(s)
  Network `+ids["shared"]+` "shared"
  Network `+ids["plain"]+` "plain"
`, s)
}

func TestDuplicates(t *testing.T) {
	c, ids := reportCloud(t)
	ctx := t.Context()
	net, err := c.GetNetwork(ctx, ids["plain"])
	require.NoError(t, err)
	for _, cidr := range []string{"10.0.1.0/24", "10.0.2.0/24"} {
		_, err := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "dup", NetworkID: net.ID, CIDR: cidr,
			Tags: map[string]string{"capkit.io/cluster": "a", "role": "vpc"}})
		require.NoError(t, err)
	}
	subnets := resIDs(c.List(cloud.KindSubnet))
	byValue := cloud.OwnerTagValue("capkit.io/cluster")

	tests := []struct {
		name  string
		owner cloud.Owner
		role  string
		want  []cloud.Duplicate
	}{
		{"by role tag", byValue, "role", []cloud.Duplicate{
			{Kind: cloud.KindNetwork, Owner: "a", Role: "vpc", IDs: []string{ids["a-vpc"], ids["a-vpc#2"]}},
			{Kind: cloud.KindSubnet, Owner: "a", Role: "vpc", IDs: subnets},
		}},
		{"by name", byValue, "", []cloud.Duplicate{
			{Kind: cloud.KindNetwork, Owner: "a", Role: "a-vpc", IDs: []string{ids["a-vpc"], ids["a-vpc#2"]}},
			{Kind: cloud.KindSubnet, Owner: "a", Role: "dup", IDs: subnets},
		}},
		{"without owner", nil, "role", []cloud.Duplicate{
			{Kind: cloud.KindNetwork, Role: "vpc", IDs: []string{ids["a-vpc"], ids["a-vpc#2"], ids["b-vpc"], ids["shared"]}},
			{Kind: cloud.KindSubnet, Role: "vpc", IDs: subnets},
		}},
		{"role tag nobody has", byValue, "zone", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, c.Duplicates(tt.owner, tt.role))
		})
	}
	d := c.Duplicates(byValue, "role")[0]
	assert.Equal(t, `2 Network with owner "a" and role "vpc": `+ids["a-vpc"]+", "+ids["a-vpc#2"], d.String())

	require.NoError(t, c.DeleteNetwork(ctx, ids["a-vpc#2"]))
	assert.Len(t, c.Duplicates(byValue, "role"), 1, "deleting the duplicate resolves the group")
}
