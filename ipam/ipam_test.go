package ipam

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestClaimName(t *testing.T) {
	long := strings.Repeat("m", 250)
	tests := []struct {
		name, machine, device string
		index                 int
		want                  string // "" to check only the shape
		suffix                string
	}{
		{name: "short", machine: "m1", device: "eth0", index: 0, want: "m1-eth0-0"},
		{name: "second address of a device", machine: "web-1.prod", device: "ens192", index: 1, want: "web-1.prod-ens192-1"},
		{name: "exactly 253", machine: strings.Repeat("a", 253-len("-eth0-0")), device: "eth0", index: 0, want: strings.Repeat("a", 246) + "-eth0-0"},
		{name: "long machine keeps device and index", machine: long, device: "eth0", index: 3, suffix: "-eth0-3"},
		{name: "truncation at a dot", machine: strings.Repeat("a", 234) + ".b" + strings.Repeat("c", 30), device: "eth0", index: 0, suffix: "-eth0-0"},
		{name: "truncation at a dash", machine: strings.Repeat("a", 234) + "-b" + strings.Repeat("c", 30), device: "eth0", index: 0, suffix: "-eth0-0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClaimName(tt.machine, tt.device, tt.index)
			assert.Equal(t, got, ClaimName(tt.machine, tt.device, tt.index), "deterministic")
			assert.LessOrEqual(t, len(got), 253)
			assert.Empty(t, validation.IsDNS1123Subdomain(got))
			if tt.want != "" {
				assert.Equal(t, tt.want, got)
			}
			assert.True(t, strings.HasSuffix(got, tt.suffix), got)
		})
	}

	t.Run("long names that share a start differ", func(t *testing.T) {
		a, b := ClaimName(long+"a", "eth0", 0), ClaimName(long+"b", "eth0", 0)
		assert.NotEqual(t, a, b)
		assert.Equal(t, a[:200], b[:200])
	})
	t.Run("devices and indexes of one machine never collide", func(t *testing.T) {
		seen := map[string]string{}
		for _, machine := range []string{"m", long} {
			for _, device := range []string{"a", "a-1", "a-1-0", "a-10", "eth0", "eth0-1"} {
				for i := range 12 {
					name := ClaimName(machine, device, i)
					what := fmt.Sprintf("%s/%s/%d", machine[:1], device, i)
					assert.NotContains(t, seen, name, "%s and %s", what, seen[name])
					seen[name] = what
				}
			}
		}
	})
	t.Run("machines may collide: ownership decides", func(t *testing.T) {
		assert.Equal(t, ClaimName("a", "b-c", 0), ClaimName("a-b", "c", 0))
	})
}

func TestOwnerLabelValue(t *testing.T) {
	assert.Equal(t, "m1", ownerLabelValue("m1"))
	for _, name := range []string{strings.Repeat("x", 63), strings.Repeat("x", 64), strings.Repeat("a.", 126) + "a"} {
		got := ownerLabelValue(name)
		assert.LessOrEqual(t, len(got), 63, name)
		assert.Empty(t, validation.IsValidLabelValue(got), got)
		assert.Equal(t, got, ownerLabelValue(name))
	}
	assert.NotEqual(t, ownerLabelValue(strings.Repeat("x", 64)), ownerLabelValue(strings.Repeat("x", 65)))
}

func TestWaitingMessage(t *testing.T) {
	tests := []struct {
		waiting []string
		want    string
	}{
		{nil, ""},
		{[]string{"a"}, "waiting for the IP address of claim a"},
		{[]string{"a", "b"}, "waiting for IP addresses of claims a, b"},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, "waiting for IP addresses of claims a, b, c, d, e and 2 more"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, WaitingMessage(tt.waiting))
	}
}

func TestRequestValidation(t *testing.T) {
	pool := PoolRef{APIGroup: Group, Kind: "InClusterIPPool", Name: "nodes"}
	with := func(change func(*Request)) []Request {
		r := Request{Device: "eth0", Pool: pool}
		change(&r)
		return []Request{r}
	}
	tests := []struct {
		name string
		reqs []Request
		want string
	}{
		{name: "too many", reqs: make([]Request, 17), want: "cannot use 17 requests: more than 16: invalid"},
		{name: "device upper case", reqs: with(func(r *Request) { r.Device = "Eth0" }), want: `requests[0]: device "Eth0" is not a DNS label of at most 15 characters`},
		{name: "device too long", reqs: with(func(r *Request) { r.Device = "a234567890123456" }), want: `device "a234567890123456"`},
		{name: "device empty", reqs: with(func(r *Request) { r.Device = "" }), want: `device ""`},
		{name: "api group empty", reqs: with(func(r *Request) { r.Pool.APIGroup = "" }), want: `pool.apiGroup "" is not a DNS subdomain`},
		{name: "api group with version", reqs: with(func(r *Request) { r.Pool.APIGroup = Group + "/v1alpha2" }), want: `pool.apiGroup "ipam.cluster.x-k8s.io/v1alpha2"`},
		{name: "bad kind", reqs: with(func(r *Request) { r.Pool.Kind = "In Cluster" }), want: `pool.kind "In Cluster" is not a kind`},
		{name: "bad pool name", reqs: with(func(r *Request) { r.Pool.Name = "Nodes_1" }), want: `pool.name "Nodes_1" is not a DNS subdomain`},
		{name: "a device asks a pool twice", reqs: []Request{{Device: "eth0", Pool: pool}, {Device: "eth1", Pool: pool}, {Device: "eth0", Pool: pool}},
			want: `requests[2]: device "eth0" asks pool InClusterIPPool.ipam.cluster.x-k8s.io/nodes again (requests[0])`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := claimNames("m", tt.reqs)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, tt.want)
		})
	}

	names, err := claimNames("m", []Request{{Device: "eth0", Pool: pool}, {Device: "eth1", Pool: pool}, {Device: "eth0", Pool: PoolRef{APIGroup: Group, Kind: "InClusterIPPool", Name: "storage"}}})
	assert.NoError(t, err)
	assert.Equal(t, []string{"m-eth0-0", "m-eth1-0", "m-eth0-1"}, names)

	for _, cluster := range []string{"", "Prod", strings.Repeat("c", 64), "a_b"} {
		assert.ErrorIs(t, checkCluster(cluster), ErrInvalid, cluster)
	}
	assert.NoError(t, checkCluster(strings.Repeat("c", 63)))
}
