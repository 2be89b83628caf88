package cloud_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

func TestInvalidParameters(t *testing.T) {
	ctx := context.Background()
	manyTags := map[string]string{}
	for i := range 51 {
		manyTags[fmt.Sprintf("k%d", i)] = "v"
	}
	tests := []struct {
		name string
		kind cloud.Kind
		call func(e env) error
		want string // field and value as they must appear in the message
	}{
		{"empty name", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{CIDR: "10.0.0.0/16"}))
		}, `name "" must not be empty`},
		{"long name", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: strings.Repeat("n", 256), CIDR: "10.0.0.0/16"}))
		}, "must be at most 255 bytes"},
		{"control character in name", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "a\nb", CIDR: "10.0.0.0/16"}))
		}, `name "a\nb" must be valid UTF-8 without control characters`},
		{"empty tag key", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", Tags: map[string]string{"": "v"}}))
		}, `tags key "" must not be empty`},
		{"long tag key", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", Tags: map[string]string{strings.Repeat("k", 129): "v"}}))
		}, "must be at most 128 bytes"},
		{"long tag value", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", Tags: map[string]string{"k": strings.Repeat("v", 257)}}))
		}, `tags[k] "vvv`},
		{"too many tags", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16", Tags: manyTags}))
		}, "has 51 tags, at most 50 are allowed"},
		{"unparsable cidr", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/33"}))
		}, `cidr "10.0.0.0/33" is not an IPv4 CIDR`},
		{"ipv6 cidr", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "fd00::/64"}))
		}, `cidr "fd00::/64" is not an IPv4 CIDR`},
		{"cidr with host bits", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.1/16"}))
		}, `cidr "10.0.0.1/16" has host bits set (did you mean "10.0.0.0/16"?)`},
		{"network too large", cloud.KindNetwork, func(e env) error {
			return gotErr(e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/7"}))
		}, `cidr "10.0.0.0/7" must have a prefix length from /8 to /28`},
		{"subnet outside network", cloud.KindSubnet, func(e env) error {
			return gotErr(e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.net.ID, CIDR: "10.1.0.0/24"}))
		}, `cidr "10.1.0.0/24" is not inside cidr "10.0.0.0/16" of network "` + "net-"},
		{"subnet larger than network", cloud.KindSubnet, func(e env) error {
			n, err := e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "small", CIDR: "10.5.0.0/24"})
			require.NoError(t, err)
			return gotErr(e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: n.ID, CIDR: "10.5.0.0/16"}))
		}, `cidr "10.5.0.0/16" is not inside cidr "10.5.0.0/24"`},
		{"overlapping subnet", cloud.KindSubnet, func(e env) error {
			return gotErr(e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.net.ID, CIDR: "10.0.1.128/25"}))
		}, `cidr "10.0.1.128/25" overlaps cidr "10.0.1.0/24" of subnet "subnet-`},
		{"unknown network", cloud.KindSubnet, func(e env) error {
			return gotErr(e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: "net-00000000", CIDR: "10.0.2.0/24"}))
		}, `networkID "net-00000000" does not exist`},
		{"subnet id as network id", cloud.KindSubnet, func(e env) error {
			return gotErr(e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.subnet.ID, CIDR: "10.0.2.0/24"}))
		}, `is not a network ID (want prefix "net-")`},
		{"rule protocol", cloud.KindSecurityGroup, func(e env) error {
			return gotErr(e.c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "g", NetworkID: e.net.ID,
				Ingress: []cloud.Rule{{Protocol: "tcp", Port: 22, Source: "0.0.0.0/0"}, {Protocol: "sctp", Source: "0.0.0.0/0"}}}))
		}, `ingress[1].protocol "sctp" must be one of tcp, udp, icmp, all`},
		{"rule tcp port", cloud.KindSecurityGroup, func(e env) error {
			return gotErr(e.c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "g", NetworkID: e.net.ID,
				Ingress: []cloud.Rule{{Protocol: "tcp", Port: 70000, Source: "0.0.0.0/0"}}}))
		}, `ingress[0].port "70000" must be from 1 to 65535 for tcp`},
		{"rule icmp port", cloud.KindSecurityGroup, func(e env) error {
			return gotErr(e.c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "g", NetworkID: e.net.ID,
				Ingress: []cloud.Rule{{Protocol: "icmp", Port: 8, Source: "0.0.0.0/0"}}}))
		}, `ingress[0].port "8" must be 0 for icmp`},
		{"rule source", cloud.KindSecurityGroup, func(e env) error {
			return gotErr(e.c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "g", NetworkID: e.net.ID,
				Ingress: []cloud.Rule{{Protocol: "all", Source: "anywhere"}}}))
		}, `ingress[0].source "anywhere" is not an IPv4 CIDR`},
		{"long description", cloud.KindSecurityGroup, func(e env) error {
			return gotErr(e.c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "g", NetworkID: e.net.ID, Description: strings.Repeat("d", 256)}))
		}, `description "ddd`},
		{"security group in unknown network", cloud.KindSecurityGroup, func(e env) error {
			return gotErr(e.c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "g", NetworkID: ""}))
		}, `networkID "" must not be empty`},
		{"load balancer port", cloud.KindLoadBalancer, func(e env) error {
			return gotErr(e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "lb", NetworkID: e.net.ID, Port: -1}))
		}, `port "-1" must be from 1 to 65535, or 0 for the default`},
		{"load balancer in unknown network", cloud.KindLoadBalancer, func(e env) error {
			return gotErr(e.c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "lb", NetworkID: "net-00000000"}))
		}, `networkID "net-00000000" does not exist`},
		{"instance without image", cloud.KindInstance, func(e env) error {
			return gotErr(e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Flavor: "small"}))
		}, `image "" must not be empty`},
		{"instance without flavor", cloud.KindInstance, func(e env) error {
			return gotErr(e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img"}))
		}, `flavor "" must not be empty`},
		{"instance of an unknown flavor", cloud.KindInstance, func(e env) error {
			return gotErr(e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "huge"}))
		}, `flavor "huge" is not a flavor of this cloud (small, medium, large)`},
		{"instance in unknown subnet", cloud.KindInstance, func(e env) error {
			return gotErr(e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: "subnet-00000000", Image: "img", Flavor: "small"}))
		}, `subnetID "subnet-00000000" does not exist`},
		{"instance with unknown security group", cloud.KindInstance, func(e env) error {
			return gotErr(e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small",
				SecurityGroupIDs: []string{e.sg.ID, "sg-00000000"}}))
		}, `securityGroupIDs[1] "sg-00000000" does not exist`},
		{"instance with a security group listed twice", cloud.KindInstance, func(e env) error {
			return gotErr(e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small",
				SecurityGroupIDs: []string{e.sg.ID, e.sg.ID}}))
		}, `securityGroupIDs[1] "` + "sg-"},
		{"instance with a security group of another network", cloud.KindInstance, func(e env) error {
			n, err := e.c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "other", CIDR: "10.9.0.0/16"})
			require.NoError(t, err)
			sg, err := e.c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "other", NetworkID: n.ID})
			require.NoError(t, err)
			return gotErr(e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small",
				SecurityGroupIDs: []string{sg.ID}}))
		}, `not in network "` + "net-"},
		{"user data too large", cloud.KindInstance, func(e env) error {
			return gotErr(e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small",
				UserData: []byte(strings.Repeat("S", cloud.DefaultMaxUserDataSize+1))}))
		}, `userData "16385 bytes" must be at most 16384 bytes`},
		{"find with empty tag key", cloud.KindNetwork, func(e env) error {
			return gotErr2(e.c.FindNetworks(ctx, map[string]string{"": "x"}))
		}, `tags key "" must not be empty`},
		{"find without tags", cloud.KindSubnet, func(e env) error {
			return gotErr2(e.c.FindSubnets(ctx, nil))
		}, `tags "" must not be empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			before := e.c.Count(tt.kind)
			err := tt.call(e)
			require.ErrorIs(t, err, cloud.ErrInvalidParameter)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "SSSS", "user data never appears in errors")
			assert.NotContains(t, err.Error(), "\n", "errors are one line")
			assert.Equal(t, before, e.c.Count(tt.kind), "nothing is created")
		})
	}
}

func gotErr2[T any](_ []T, err error) error { return err }

func TestMaxUserDataSizeOption(t *testing.T) {
	e := newEnv(t, cloud.WithMaxUserDataSize(4))
	_, err := e.c.CreateInstance(t.Context(), cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", UserData: []byte("12345")})
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	_, err = e.c.CreateInstance(t.Context(), cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", UserData: []byte("1234")})
	require.NoError(t, err)
}

func TestOverlapNamesTheOldestSubnet(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	second, err := e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.net.ID, CIDR: "10.0.0.0/24"})
	require.NoError(t, err)
	for range 5 {
		_, err := e.c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: e.net.ID, CIDR: "10.0.0.0/23"})
		require.ErrorIs(t, err, cloud.ErrInvalidParameter)
		assert.Contains(t, err.Error(), e.subnet.ID)
		assert.NotContains(t, err.Error(), second.ID)
	}
}
