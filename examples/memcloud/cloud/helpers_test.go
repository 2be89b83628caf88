package cloud_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// env is a cloud with a network, a subnet and a security group already created.
type env struct {
	c      *cloud.Cloud
	net    *cloud.Network
	subnet *cloud.Subnet
	sg     *cloud.SecurityGroup
}

func newEnv(t *testing.T, opts ...cloud.Option) env {
	t.Helper()
	c := memcloudtest.NewCloud(t, opts...)
	n := memcloudtest.NewNetwork(t, c, "base")
	c.ResetCounters()
	return env{c: c, net: n.Network, subnet: n.Subnet, sg: n.SecurityGroup}
}

// req is a kind-independent create request; n makes CIDRs unique.
type req struct {
	name, token string
	tags        map[string]string
	n           int
}

// maker drives one kind through the typed API.
type maker struct {
	kind   cloud.Kind
	create func(ctx context.Context, e env, r req) (string, error)
	get    func(ctx context.Context, e env, id string) error
	del    func(ctx context.Context, e env, id string) error
	find   func(ctx context.Context, e env, tags map[string]string) ([]string, error)
}

// metaOf returns the Meta of any resource value: every resource type embeds one.
func metaOf(x any) cloud.Meta {
	return reflect.ValueOf(x).FieldByName("Meta").Interface().(cloud.Meta)
}

// gotErr is the error of a call that returns a resource.
func gotErr[T any](_ *T, err error) error { return err }

func findIDs[T any](items []T, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, it := range items {
		out = append(out, metaOf(it).ID)
	}
	return out, nil
}

// makerOf is the maker of the kind whose requests spec makes and whose calls are the methods create, get,
// del and find of cloud.Cloud (as method expressions: (*cloud.Cloud).CreateNetwork, …).
func makerOf[S, R any](kind cloud.Kind, spec func(e env, r req) S,
	create func(*cloud.Cloud, context.Context, S) (*R, error),
	get func(*cloud.Cloud, context.Context, string) (*R, error),
	del func(*cloud.Cloud, context.Context, string) error,
	find func(*cloud.Cloud, context.Context, map[string]string) ([]R, error),
) maker {
	return maker{
		kind: kind,
		create: func(ctx context.Context, e env, r req) (string, error) {
			x, err := create(e.c, ctx, spec(e, r))
			if err != nil {
				return "", err
			}
			return metaOf(*x).ID, nil
		},
		get: func(ctx context.Context, e env, id string) error { return gotErr(get(e.c, ctx, id)) },
		del: func(ctx context.Context, e env, id string) error { return del(e.c, ctx, id) },
		find: func(ctx context.Context, e env, tags map[string]string) ([]string, error) {
			return findIDs(find(e.c, ctx, tags))
		},
	}
}

var makers = []maker{
	makerOf(cloud.KindNetwork, func(_ env, r req) cloud.NetworkSpec {
		return cloud.NetworkSpec{Name: r.name, CIDR: fmt.Sprintf("10.%d.0.0/16", 100+r.n), Tags: r.tags, IdempotencyToken: r.token}
	}, (*cloud.Cloud).CreateNetwork, (*cloud.Cloud).GetNetwork, (*cloud.Cloud).DeleteNetwork, (*cloud.Cloud).FindNetworks),
	makerOf(cloud.KindSubnet, func(e env, r req) cloud.SubnetSpec {
		return cloud.SubnetSpec{Name: r.name, NetworkID: e.net.ID, CIDR: fmt.Sprintf("10.0.%d.0/24", 100+r.n), Tags: r.tags, IdempotencyToken: r.token}
	}, (*cloud.Cloud).CreateSubnet, (*cloud.Cloud).GetSubnet, (*cloud.Cloud).DeleteSubnet, (*cloud.Cloud).FindSubnets),
	makerOf(cloud.KindSecurityGroup, func(e env, r req) cloud.SecurityGroupSpec {
		return cloud.SecurityGroupSpec{Name: r.name, NetworkID: e.net.ID, Tags: r.tags, IdempotencyToken: r.token,
			Ingress: []cloud.Rule{{Protocol: "tcp", Port: 6443, Source: "0.0.0.0/0"}}}
	}, (*cloud.Cloud).CreateSecurityGroup, (*cloud.Cloud).GetSecurityGroup, (*cloud.Cloud).DeleteSecurityGroup, (*cloud.Cloud).FindSecurityGroups),
	makerOf(cloud.KindLoadBalancer, func(e env, r req) cloud.LoadBalancerSpec {
		return cloud.LoadBalancerSpec{Name: r.name, NetworkID: e.net.ID, Tags: r.tags, IdempotencyToken: r.token}
	}, (*cloud.Cloud).CreateLoadBalancer, (*cloud.Cloud).GetLoadBalancer, (*cloud.Cloud).DeleteLoadBalancer, (*cloud.Cloud).FindLoadBalancers),
	// Size 0: the group alone, so that tests counting the resources of every kind see one creation per kind.
	// instancegroup_test.go covers groups with instances.
	makerOf(cloud.KindInstanceGroup, func(e env, r req) cloud.InstanceGroupSpec {
		return cloud.InstanceGroupSpec{Name: r.name, SubnetID: e.subnet.ID, Image: "ubuntu-24.04", Flavor: "small",
			SecurityGroupIDs: []string{e.sg.ID}, UserData: []byte("#cloud-config\n"), Tags: r.tags, IdempotencyToken: r.token}
	}, (*cloud.Cloud).CreateInstanceGroup, (*cloud.Cloud).GetInstanceGroup, (*cloud.Cloud).DeleteInstanceGroup, (*cloud.Cloud).FindInstanceGroups),
	makerOf(cloud.KindInstance, func(e env, r req) cloud.InstanceSpec {
		return cloud.InstanceSpec{Name: r.name, SubnetID: e.subnet.ID, Image: "ubuntu-24.04", Flavor: "small",
			SecurityGroupIDs: []string{e.sg.ID}, UserData: []byte("#cloud-config\n"), Tags: r.tags, IdempotencyToken: r.token}
	}, (*cloud.Cloud).CreateInstance, (*cloud.Cloud).GetInstance, (*cloud.Cloud).DeleteInstance, (*cloud.Cloud).FindInstances),
}

// faultCase injects one fault into calls of an operation: before the change or after it (the response is
// lost), scripted or probabilistic. wantApplied is whether the cloud made the change all the same.
type faultCase struct {
	name        string
	inject      func(t *testing.T, c *cloud.Cloud)
	wantApplied bool
}

// faultCases are the four ways a call of op can fail.
func faultCases(op cloud.Op) []faultCase {
	return []faultCase{
		{"scripted before the change", func(t *testing.T, c *cloud.Cloud) { require.NoError(t, c.FailNext(op, cloud.BeforeChange)) }, false},
		{"scripted after the change: the response is lost", func(t *testing.T, c *cloud.Cloud) {
			require.NoError(t, c.FailNext(op, cloud.AfterChange))
		}, true},
		{"probabilistic before the change", func(t *testing.T, c *cloud.Cloud) {
			require.NoError(t, c.SetFaults(cloud.FaultConfig{BeforeChange: 1, Ops: []cloud.Op{op}}))
		}, false},
		{"probabilistic after the change", func(t *testing.T, c *cloud.Cloud) {
			require.NoError(t, c.SetFaults(cloud.FaultConfig{AfterChange: 1}))
		}, true},
	}
}

// newSubnet creates a network "n" of 10.0.0.0/16 in c and a subnet "s" of cidr in it, as the caller of ctx.
func newSubnet(ctx context.Context, t *testing.T, c *cloud.Cloud, cidr string) *cloud.Subnet {
	t.Helper()
	net, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
	subnet, err := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: net.ID, CIDR: cidr})
	require.NoError(t, err)
	return subnet
}
