package services_test

import (
	"context"
	"testing"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/ensuretest"
	"github.com/capkit/capkit/reconcile/ensure"
)

// parents are the resources a resource under test lives in, created in a fresh seeded cloud before the
// scenario: the same seed gives the same IDs in every fixture, so a ValidSpec can name them.
type parents struct{ network, subnet, securityGroup string }

func newParents(t testing.TB, c *cloud.Cloud) parents {
	t.Helper()
	n := memcloudtest.NewNetwork(t, c, "parent")
	return parents{network: n.Network.ID, subnet: n.Subnet.ID, securityGroup: n.SecurityGroup.ID}
}

// scenarioCloud returns a fresh cloud with its parents; the parents are the same in every call.
func scenarioCloud(t testing.TB) (*cloud.Cloud, parents) {
	t.Helper()
	c := memcloudtest.NewCloud(t, cloud.WithSeed(11))
	return c, newParents(t, c)
}

// fixture returns the CloudFixture of one kind: memcloud refuses to reuse the idempotency token of a
// deleted resource, and its tag search can lag.
func fixture[S, O any](t testing.TB, c *cloud.Cloud, kind cloud.Kind, res ensure.Resource[S, O], del func(context.Context, string) error) ensuretest.CloudFixture[S, O] {
	t.Helper()
	return ensuretest.CloudFixture[S, O]{
		Resource: res,
		Count: func() int {
			return c.Count(kind) - map[cloud.Kind]int{cloud.KindNetwork: 1, cloud.KindSubnet: 1, cloud.KindSecurityGroup: 1}[kind]
		},
		DeleteOutOfBand:           func(id string) error { return del(context.Background(), id) },
		FailNextCreateAfterChange: func() error { return c.FailNext(cloud.VerbCreate.On(kind), cloud.AfterChange) },
		LagSearch:                 func() error { return c.SetFaults(cloud.FaultConfig{SearchLag: 3}) },
	}
}

func TestEnsureScenarios(t *testing.T) {
	_, p := scenarioCloud(t)
	opts := []ensure.Option{ensure.WithTags(map[string]string{services.TagCluster: "ns/c1"})}
	t.Run("Network", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.NetworkSpec, *cloud.Network]{
			Key: services.KeyNetwork, Options: opts, OutOfBandDelete: ensuretest.ReportTerminal,
			ValidSpec:   cloud.NetworkSpec{Name: "c1-network", CIDR: "10.1.0.0/16"},
			InvalidSpec: cloud.NetworkSpec{Name: "c1-network", CIDR: "10.1.0.1/16"},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.NetworkSpec, *cloud.Network] {
				c, _ := scenarioCloud(t)
				return fixture(t, c, cloud.KindNetwork, services.NewResources(c).Networks, c.DeleteNetwork)
			},
		})
	})
	t.Run("Subnet", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.SubnetSpec, *cloud.Subnet]{
			Key: services.SubnetKey("worker"), Options: opts, OutOfBandDelete: ensuretest.ReportTerminal,
			ValidSpec:   cloud.SubnetSpec{Name: "c1-worker", NetworkID: p.network, CIDR: "10.0.2.0/24"},
			InvalidSpec: cloud.SubnetSpec{Name: "c1-worker", CIDR: "10.0.2.0/24"},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.SubnetSpec, *cloud.Subnet] {
				c, _ := scenarioCloud(t)
				return fixture(t, c, cloud.KindSubnet, services.NewResources(c).Subnets, c.DeleteSubnet)
			},
		})
	})
	t.Run("SecurityGroup", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.SecurityGroupSpec, *cloud.SecurityGroup]{
			Key: services.KeySecurityGroup, Options: opts, OutOfBandDelete: ensuretest.ReportTerminal,
			ValidSpec: cloud.SecurityGroupSpec{Name: "c1-sg", NetworkID: p.network,
				Ingress: []cloud.Rule{{Protocol: "tcp", Port: 6443, Source: "0.0.0.0/0"}}},
			InvalidSpec: cloud.SecurityGroupSpec{NetworkID: p.network},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.SecurityGroupSpec, *cloud.SecurityGroup] {
				c, _ := scenarioCloud(t)
				f := fixture(t, c, cloud.KindSecurityGroup, services.NewResources(c).SecurityGroups, c.DeleteSecurityGroup)
				f.Drift = func(id string) error { // someone opens SSH in the cloud console
					_, err := c.UpdateSecurityGroupRules(context.Background(), id, []cloud.Rule{{Protocol: "tcp", Port: 22, Source: "0.0.0.0/0"}})
					return err
				}
				return f
			},
		})
	})
	t.Run("LoadBalancer", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.LoadBalancerSpec, *cloud.LoadBalancer]{
			Key: services.KeyLoadBalancer, Options: opts, OutOfBandDelete: ensuretest.ReportTerminal,
			ValidSpec:   cloud.LoadBalancerSpec{Name: "c1-lb", NetworkID: p.network, Port: 6443},
			InvalidSpec: cloud.LoadBalancerSpec{Name: "c1-lb", NetworkID: p.network, Port: 70000},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.LoadBalancerSpec, *cloud.LoadBalancer] {
				c, _ := scenarioCloud(t)
				return fixture(t, c, cloud.KindLoadBalancer, services.NewResources(c).LoadBalancers, c.DeleteLoadBalancer)
			},
		})
	})
	t.Run("Instance", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.InstanceSpec, *cloud.Instance]{
			Key: services.KeyInstance, Options: opts, OutOfBandDelete: ensuretest.ReportTerminal,
			ValidSpec: cloud.InstanceSpec{Name: "m-0", SubnetID: p.subnet, Image: "img", Flavor: "small",
				SecurityGroupIDs: []string{p.securityGroup}, UserData: []byte(userData)},
			InvalidSpec: cloud.InstanceSpec{Name: "m-0", SubnetID: p.subnet, Image: "img", Flavor: "small"},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.InstanceSpec, *cloud.Instance] {
				c, _ := scenarioCloud(t)
				f := fixture(t, c, cloud.KindInstance, services.NewResources(c).Instances, c.DeleteInstance)
				f.MakePending = func(id string) error { return c.SetInstanceState(id, cloud.InstancePending) }
				return f
			},
		})
	})
}
