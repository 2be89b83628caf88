package services_test

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/ensuretest"
	"github.com/capkit/capkit/reconcile/ensure"
)

// parents are the resources a resource under test lives in, created in a fresh seeded cloud before the
// scenario: the same seed gives the same IDs in every fixture, so a ValidSpec can name them.
type parents struct{ network, subnet, securityGroup string }

// The valid specs of each kind in the parents p.
func (p parents) networkSpec() cloud.NetworkSpec {
	return cloud.NetworkSpec{Name: "c1-network", CIDR: "10.1.0.0/16"}
}

func (p parents) subnetSpec() cloud.SubnetSpec {
	return cloud.SubnetSpec{Name: "c1-worker", NetworkID: p.network, CIDR: "10.0.2.0/24"}
}

func (p parents) securityGroupSpec() cloud.SecurityGroupSpec {
	return cloud.SecurityGroupSpec{Name: "c1-sg", NetworkID: p.network, Ingress: []cloud.Rule{{Protocol: "tcp", Port: 6443, Source: "0.0.0.0/0"}}}
}

func (p parents) loadBalancerSpec() cloud.LoadBalancerSpec {
	return cloud.LoadBalancerSpec{Name: "c1-lb", NetworkID: p.network, Port: 6443}
}

func (p parents) instanceSpec() cloud.InstanceSpec {
	return cloud.InstanceSpec{Name: "m-0", SubnetID: p.subnet, Image: "img", Flavor: "small",
		SecurityGroupIDs: []string{p.securityGroup}, UserData: []byte(userData)}
}

func (p parents) instanceGroupSpec() cloud.InstanceGroupSpec {
	i := p.instanceSpec()
	return cloud.InstanceGroupSpec{Name: "pool", SubnetID: i.SubnetID, Image: i.Image, Flavor: i.Flavor,
		SecurityGroupIDs: i.SecurityGroupIDs, UserData: i.UserData, Size: 2}
}

func newParents(t testing.TB, c *cloud.Cloud) parents {
	t.Helper()
	n := memcloudtest.NewNetwork(t, c, "parent")
	return parents{network: n.Network.ID, subnet: n.Subnet.ID, securityGroup: n.SecurityGroup.ID}
}

// scenarioCloud returns a fresh cloud of env with its parents; the parents are the same in every call with the
// same env. clock is the cloud's, nil when it runs on real time.
func scenarioCloud(t testing.TB, env scenarioEnv) (c *cloud.Cloud, p parents, clock *clocktesting.FakeClock) {
	t.Helper()
	opts := append([]cloud.Option{cloud.WithSeed(11)}, env...)
	if len(env) > 0 {
		clock = clocktesting.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		opts = append(opts, cloud.WithClock(clock.Now))
	}
	c = memcloudtest.NewCloud(t, opts...)
	return c, newParents(t, c), clock
}

// scenarioEnv are the options of the clouds of a run of the scenarios: none for memcloud as the demo runs it,
// on real time; with options, the clouds run on a fake clock that the scenarios move (CloudFixture.Advance).
type scenarioEnv []cloud.Option

// fixture returns the CloudFixture of one kind on c, whose clock is clock (nil: real time): memcloud refuses
// to reuse the idempotency token of a deleted resource, its tag search can lag (by searches, or always by
// time), and its creates may run as operations, which can be made to fail.
func fixture[S, O any](t testing.TB, c *cloud.Cloud, clock *clocktesting.FakeClock, kind cloud.Kind, res ensure.Resource[S, O], del func(context.Context, string) error) ensuretest.CloudFixture[S, O] {
	t.Helper()
	f := ensuretest.CloudFixture[S, O]{
		Resource: res,
		Count: func() int {
			return c.Count(kind) - map[cloud.Kind]int{cloud.KindNetwork: 1, cloud.KindSubnet: 1, cloud.KindSecurityGroup: 1}[kind]
		},
		DeleteOutOfBand:           func(id string) error { return del(context.Background(), id) },
		FailNextCreateAfterChange: func() error { return c.FailNext(cloud.VerbCreate.On(kind), cloud.AfterChange) },
		LagSearch:                 func() error { return c.SetFaults(cloud.FaultConfig{SearchLag: 3}) },
	}
	if clock != nil {
		f.Advance = clock.Step
	}
	if b := c.Behavior(); b.AsyncCreates > 0 || b.SearchLag > 0 {
		// The search always lags, by a time the Resource declares; a lag counted in searches on top of it is a
		// fault no declaration covers, which only idempotency tokens survive (the default cloud's scenarios).
		f.LagSearch = func() error { return nil }
	}
	if c.Behavior().AsyncCreates > 0 {
		f.AsyncCreate = true
		f.FailNextOperation = func() error { return c.FailNext(cloud.VerbCreate.On(kind), cloud.InOperation) }
	}
	return f
}

func TestEnsureScenarios(t *testing.T) {
	runEnsureScenarios(t, nil)
}

// TestEnsureScenariosOnAHardCloud runs the scenarios on the clouds of issue 41: creates that run as operations
// of 500ms, a tag search that lists a resource 1s after it exists, with and without idempotency tokens.
func TestEnsureScenariosOnAHardCloud(t *testing.T) {
	hard := scenarioEnv{cloud.WithAsyncCreates(500 * time.Millisecond), cloud.WithSearchLag(time.Second)}
	t.Run("WithTokens", func(t *testing.T) { runEnsureScenarios(t, hard) })
	t.Run("WithoutTokens", func(t *testing.T) { runEnsureScenarios(t, append(hard, cloud.WithoutTokens())) })
}

// runEnsureScenarios runs ensuretest's scenarios for every kind of memcloud, on clouds of env.
func runEnsureScenarios(t *testing.T, env scenarioEnv) {
	c, p, _ := scenarioCloud(t, env)
	outOfBand := ensuretest.ReportTerminal // memcloud refuses the token of a deleted resource
	if c.Behavior().IgnoresTokens {
		outOfBand = ensuretest.Recreate
	}
	opts := []ensure.Option{ensure.WithTags(map[string]string{services.TagCluster: "ns/c1"})}
	t.Run("Network", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.NetworkSpec, *cloud.Network]{
			Key: services.KeyNetwork, Options: opts, OutOfBandDelete: outOfBand,
			ValidSpec:   p.networkSpec(),
			InvalidSpec: cloud.NetworkSpec{Name: "c1-network", CIDR: "10.1.0.1/16"},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.NetworkSpec, *cloud.Network] {
				c, _, clock := scenarioCloud(t, env)
				return fixture(t, c, clock, cloud.KindNetwork, services.NewResources(c).Networks, c.DeleteNetwork)
			},
		})
	})
	t.Run("Subnet", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.SubnetSpec, *cloud.Subnet]{
			Key: services.SubnetKey("worker"), Options: opts, OutOfBandDelete: outOfBand,
			ValidSpec:   p.subnetSpec(),
			InvalidSpec: cloud.SubnetSpec{Name: "c1-worker", CIDR: "10.0.2.0/24"},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.SubnetSpec, *cloud.Subnet] {
				c, _, clock := scenarioCloud(t, env)
				return fixture(t, c, clock, cloud.KindSubnet, services.NewResources(c).Subnets, c.DeleteSubnet)
			},
		})
	})
	t.Run("SecurityGroup", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.SecurityGroupSpec, *cloud.SecurityGroup]{
			Key: services.KeySecurityGroup, Options: opts, OutOfBandDelete: outOfBand,
			ValidSpec:   p.securityGroupSpec(),
			InvalidSpec: cloud.SecurityGroupSpec{NetworkID: p.network},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.SecurityGroupSpec, *cloud.SecurityGroup] {
				c, _, clock := scenarioCloud(t, env)
				f := fixture(t, c, clock, cloud.KindSecurityGroup, services.NewResources(c).SecurityGroups, c.DeleteSecurityGroup)
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
			Key: services.KeyLoadBalancer, Options: opts, OutOfBandDelete: outOfBand,
			ValidSpec:   p.loadBalancerSpec(),
			InvalidSpec: cloud.LoadBalancerSpec{Name: "c1-lb", NetworkID: p.network, Port: 70000},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.LoadBalancerSpec, *cloud.LoadBalancer] {
				c, _, clock := scenarioCloud(t, env)
				return fixture(t, c, clock, cloud.KindLoadBalancer, services.NewResources(c).LoadBalancers, c.DeleteLoadBalancer)
			},
		})
	})
	t.Run("Instance", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.InstanceSpec, *cloud.Instance]{
			Key: services.KeyInstance, Options: opts, OutOfBandDelete: outOfBand,
			ValidSpec:   p.instanceSpec(),
			InvalidSpec: cloud.InstanceSpec{Name: "m-0", SubnetID: p.subnet, Image: "img", Flavor: "small"},
			New: func(t testing.TB) ensuretest.CloudFixture[cloud.InstanceSpec, *cloud.Instance] {
				c, _, clock := scenarioCloud(t, env)
				f := fixture(t, c, clock, cloud.KindInstance, services.NewResources(c).Instances, c.DeleteInstance)
				f.MakePending = func(id string) error { return c.SetInstanceState(id, cloud.InstancePending) }
				return f
			},
		})
	})
}
