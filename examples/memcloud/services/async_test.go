package services_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// The hard cloud of issue 41: creates run as operations of 500ms, the tag search lists a resource 1s after its
// operation ended, and idempotency tokens are ignored.
const (
	asyncCreates = 500 * time.Millisecond
	searchLag    = time.Second
)

// hardCloud returns a memcloud that runs creates as operations, lags its search and ignores tokens, on clock,
// with the parents of the resources under test.
func hardCloud(t *testing.T, clock *clocktesting.FakeClock) (*cloud.Cloud, parents) {
	t.Helper()
	c := memcloudtest.NewCloud(t, cloud.WithSeed(11), cloud.WithClock(clock.Now),
		cloud.WithAsyncCreates(asyncCreates), cloud.WithSearchLag(searchLag), cloud.WithoutTokens())
	return c, newParents(t, c)
}

func TestGuaranteesFollowTheCloud(t *testing.T) {
	tests := []struct {
		name string
		opts []cloud.Option
		want ensure.Guarantees
	}{
		{"default", nil, ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true}},
		{"without tokens", []cloud.Option{cloud.WithoutTokens()}, ensure.Guarantees{Idempotency: ensure.NotIdempotent, ImmediateSearch: true}},
		{"asynchronous creates", []cloud.Option{cloud.WithAsyncCreates(asyncCreates)},
			ensure.Guarantees{Idempotency: ensure.IdempotentByToken, SearchLag: asyncCreates + services.SearchLagMargin}},
		{"lagging search", []cloud.Option{cloud.WithSearchLag(searchLag)},
			ensure.Guarantees{Idempotency: ensure.IdempotentByToken, SearchLag: searchLag + services.SearchLagMargin}},
		{"all three", []cloud.Option{cloud.WithAsyncCreates(asyncCreates), cloud.WithSearchLag(searchLag), cloud.WithoutTokens()},
			ensure.Guarantees{Idempotency: ensure.NotIdempotent, SearchLag: asyncCreates + searchLag + services.SearchLagMargin}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := services.NewResources(memcloudtest.NewCloud(t, tt.opts...))
			for name, res := range map[string]any{"networks": r.Networks, "subnets": r.Subnets, "security groups": r.SecurityGroups,
				"load balancers": r.LoadBalancers, "instances": r.Instances, "instance groups": r.InstanceGroups} {
				d, ok := res.(ensure.Declarer)
				require.True(t, ok, name)
				assert.Equal(t, tt.want, d.Guarantees(), name)
			}
		})
	}
}

// errCrash is the controller dying right after the create call, before anything else is persisted.
var errCrash = errors.New("the controller died after the create call")

// crashAfterCreate is a Resource whose Create makes the next checkpoint of tr fail: the controller dies after
// the cloud accepted the create, before the operation (or the resource's ID) is persisted.
type crashAfterCreate[S, O any] struct {
	ensure.Resource[S, O]
	tr *scopetest.Tracker
}

func (r crashAfterCreate[S, O]) Create(ctx context.Context, spec S, token string, tags map[string]string) (O, error) {
	obs, err := r.Resource.Create(ctx, spec, token, tags)
	r.tr.FailNextPatch(errCrash)
	return obs, err
}

func (r crashAfterCreate[S, O]) Guarantees() ensure.Guarantees {
	return r.Resource.(ensure.Declarer).Guarantees()
}

func (r crashAfterCreate[S, O]) PollOperation(ctx context.Context, op string) (O, bool, error) {
	return r.Resource.(ensure.OperationPoller[O]).PollOperation(ctx, op)
}

// ours returns the resources of kind in c but the parents p.
func ours(c *cloud.Cloud, kind cloud.Kind, p parents) []cloud.Resource {
	return slices.DeleteFunc(c.List(kind), func(r cloud.Resource) bool {
		return r.ID == p.network || r.ID == p.subnet || r.ID == p.securityGroup
	})
}

// hardKind is one kind of resource on the hard cloud: its Resource and a spec of it.
type hardKind[S, O any] struct {
	kind cloud.Kind
	res  func(services.Resources) ensure.Resource[S, O]
	spec func(parents) S
}

// untilDone runs step, moving clock by the requeue of each result that is not done, until a result is done; it
// fails the test after 100 rounds.
func untilDone(t *testing.T, clock *clocktesting.FakeClock, step func() (done bool, requeue time.Duration)) {
	t.Helper()
	for range 100 {
		done, requeue := step()
		if done {
			return
		}
		require.Positive(t, requeue, "a step that is not done asks to be called again")
		clock.Step(requeue)
	}
	t.Fatal("not done after 100 reconciles")
}

// hardCases runs the crash and delete cases of issue 41 for kind k on the hard cloud.
func hardCases[S, O any](t *testing.T, k hardKind[S, O]) {
	opts := func(clock *clocktesting.FakeClock) []ensure.Option {
		return []ensure.Option{ensure.WithClock(clock.Now), ensure.WithPollInterval(200 * time.Millisecond),
			ensure.WithTags(map[string]string{services.TagCluster: "ns/c1"})}
	}
	exists := func(t *testing.T, clock *clocktesting.FakeClock, tr *scopetest.Tracker, r ensure.Resource[S, O], spec S) func() (bool, time.Duration) {
		return func() (bool, time.Duration) {
			out, err := ensure.Exists(t.Context(), tr, "resource", r, ensure.Given(spec), opts(clock)...)
			require.NoError(t, err)
			return out.Result.Done, out.Result.RequeueAfter
		}
	}
	deleted := func(t *testing.T, clock *clocktesting.FakeClock, tr *scopetest.Tracker, r ensure.Resource[S, O]) func() (bool, time.Duration) {
		return func() (bool, time.Duration) {
			res, err := ensure.Deleted(t.Context(), tr, "resource", r, opts(clock)...)
			require.NoError(t, err)
			return res.Done, res.RequeueAfter
		}
	}
	t.Run("a crash after the create call leaves exactly one resource", func(t *testing.T) {
		clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		c, p := hardCloud(t, clock)
		r, spec := k.res(services.NewResources(c)), k.spec(p)
		tr := scopetest.NewTracker("owner")
		_, err := ensure.Exists(t.Context(), tr, "resource", crashAfterCreate[S, O]{Resource: r, tr: tr}, ensure.Given(spec), opts(clock)...)
		require.ErrorIs(t, err, errCrash)
		require.Len(t, ours(c, k.kind, p), 1, "the create was accepted")
		id := ours(c, k.kind, p)[0].ID

		restarted := tr.Restart()
		untilDone(t, clock, exists(t, clock, restarted, r, spec))
		assert.Len(t, ours(c, k.kind, p), 1, "no second resource")
		got, ok := restarted.ResourceID("resource")
		assert.True(t, ok)
		assert.Equal(t, id, got, "the resource of the first create is adopted")
	})
	t.Run("a delete while the create operation runs leaves nothing", func(t *testing.T) {
		clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		c, p := hardCloud(t, clock)
		r, spec := k.res(services.NewResources(c)), k.spec(p)
		tr := scopetest.NewTracker("owner")
		out, err := ensure.Exists(t.Context(), tr, "resource", r, ensure.Given(spec), opts(clock)...)
		require.NoError(t, err)
		require.False(t, out.Result.Done, "the create runs as an operation")
		require.Len(t, ours(c, k.kind, p), 1)

		untilDone(t, clock, deleted(t, clock, tr, r))
		assert.Empty(t, ours(c, k.kind, p), "what the operation created is deleted")
	})
	t.Run("a delete after a crash after the create call leaves nothing", func(t *testing.T) {
		clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		c, p := hardCloud(t, clock)
		r, spec := k.res(services.NewResources(c)), k.spec(p)
		tr := scopetest.NewTracker("owner")
		_, err := ensure.Exists(t.Context(), tr, "resource", crashAfterCreate[S, O]{Resource: r, tr: tr}, ensure.Given(spec), opts(clock)...)
		require.ErrorIs(t, err, errCrash)
		require.Len(t, ours(c, k.kind, p), 1)

		untilDone(t, clock, deleted(t, clock, tr.Restart(), r))
		assert.Empty(t, ours(c, k.kind, p), "the resource that no operation handle names is found by its tags once listed")
	})
}

// TestNoDuplicateNorLeakOnAHardCloud runs, for every kind, the cases of issue 41 on a memcloud with
// asynchronous creates, a lagging search and no idempotency tokens: a crash after the create call, and a
// delete while the create runs.
func TestNoDuplicateNorLeakOnAHardCloud(t *testing.T) {
	t.Run("Network", func(t *testing.T) {
		hardCases(t, hardKind[cloud.NetworkSpec, *cloud.Network]{kind: cloud.KindNetwork, spec: parents.networkSpec,
			res: func(r services.Resources) ensure.Resource[cloud.NetworkSpec, *cloud.Network] { return r.Networks }})
	})
	t.Run("Subnet", func(t *testing.T) {
		hardCases(t, hardKind[cloud.SubnetSpec, *cloud.Subnet]{kind: cloud.KindSubnet, spec: parents.subnetSpec,
			res: func(r services.Resources) ensure.Resource[cloud.SubnetSpec, *cloud.Subnet] { return r.Subnets }})
	})
	t.Run("SecurityGroup", func(t *testing.T) {
		hardCases(t, hardKind[cloud.SecurityGroupSpec, *cloud.SecurityGroup]{kind: cloud.KindSecurityGroup, spec: parents.securityGroupSpec,
			res: func(r services.Resources) ensure.Resource[cloud.SecurityGroupSpec, *cloud.SecurityGroup] {
				return r.SecurityGroups
			}})
	})
	t.Run("LoadBalancer", func(t *testing.T) {
		hardCases(t, hardKind[cloud.LoadBalancerSpec, *cloud.LoadBalancer]{kind: cloud.KindLoadBalancer, spec: parents.loadBalancerSpec,
			res: func(r services.Resources) ensure.Resource[cloud.LoadBalancerSpec, *cloud.LoadBalancer] {
				return r.LoadBalancers
			}})
	})
	t.Run("InstanceGroup", func(t *testing.T) {
		hardCases(t, hardKind[cloud.InstanceGroupSpec, *cloud.InstanceGroup]{kind: cloud.KindInstanceGroup, spec: parents.instanceGroupSpec,
			res: func(r services.Resources) ensure.Resource[cloud.InstanceGroupSpec, *cloud.InstanceGroup] {
				return r.InstanceGroups
			}})
	})
	t.Run("Instance", func(t *testing.T) {
		hardCases(t, hardKind[cloud.InstanceSpec, *cloud.Instance]{kind: cloud.KindInstance, spec: parents.instanceSpec,
			res: func(r services.Resources) ensure.Resource[cloud.InstanceSpec, *cloud.Instance] { return r.Instances }})
	})
}

func TestPollOperation(t *testing.T) {
	ctx := t.Context()
	spec := cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"}
	tests := []struct {
		name string
		// prepare returns the operation to poll on c, whose clock is at the start of its operations.
		prepare  func(t *testing.T, c *cloud.Cloud, clock *clocktesting.FakeClock) string
		wantDone bool
		wantErr  error // nil: no error
		notFail  bool  // an error that is no ErrOperationFailed: reading the operation failed, retried
	}{
		{name: "running", prepare: func(t *testing.T, c *cloud.Cloud, _ *clocktesting.FakeClock) string {
			return accepted(t, c, spec)
		}},
		{name: "done", wantDone: true, prepare: func(t *testing.T, c *cloud.Cloud, clock *clocktesting.FakeClock) string {
			op := accepted(t, c, spec)
			clock.Step(asyncCreates)
			return op
		}},
		{name: "failed", wantErr: ensure.ErrOperationFailed, prepare: func(t *testing.T, c *cloud.Cloud, clock *clocktesting.FakeClock) string {
			require.NoError(t, c.FailNext(cloud.VerbCreate.On(cloud.KindNetwork), cloud.InOperation))
			op := accepted(t, c, spec)
			clock.Step(asyncCreates)
			return op
		}},
		{name: "unknown to the cloud", wantErr: ensure.ErrOperationFailed, prepare: func(*testing.T, *cloud.Cloud, *clocktesting.FakeClock) string {
			return "op-net-12345678"
		}},
		{name: "its resource deleted since", wantErr: ensure.ErrOperationFailed, prepare: func(t *testing.T, c *cloud.Cloud, clock *clocktesting.FakeClock) string {
			op := accepted(t, c, spec)
			clock.Step(asyncCreates)
			o, err := c.GetOperation(ctx, op)
			require.NoError(t, err)
			require.NoError(t, c.DeleteNetwork(ctx, o.ResourceID))
			return op
		}},
		{name: "a read that fails", wantErr: cloud.ErrInjected, notFail: true, prepare: func(t *testing.T, c *cloud.Cloud, _ *clocktesting.FakeClock) string {
			op := accepted(t, c, spec)
			require.NoError(t, c.FailNext(cloud.VerbPoll.On(cloud.KindNetwork), cloud.BeforeChange))
			return op
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			c := memcloudtest.NewCloud(t, cloud.WithClock(clock.Now), cloud.WithAsyncCreates(asyncCreates))
			p, ok := services.NewResources(c).Networks.(ensure.OperationPoller[*cloud.Network])
			require.True(t, ok)
			net, done, err := p.PollOperation(ctx, tt.prepare(t, c, clock))
			assert.Equal(t, tt.wantDone, done)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Equal(t, tt.notFail, !errors.Is(err, ensure.ErrOperationFailed))
				return
			}
			require.NoError(t, err)
			if done {
				assert.Equal(t, c.List(cloud.KindNetwork)[0].ID, net.ID)
			}
		})
	}
}

// accepted creates the network of spec on c, whose creates run as operations, and returns the operation.
func accepted(t *testing.T, c *cloud.Cloud, spec cloud.NetworkSpec) string {
	t.Helper()
	_, err := c.CreateNetwork(t.Context(), spec)
	op, ok := cloud.Accepted(err)
	require.True(t, ok, "want an operation, got %v", err)
	return op
}

// TestServicesOnACloudWithOperations provisions and deletes a cluster, a machine and a machine pool with the
// services on a memcloud whose creates run as operations: each create costs the step one reconcile more, and
// a delete that waits for a create reports Deleting, not a dependency.
func TestServicesOnACloudWithOperations(t *testing.T) {
	ctx := withPoll(t.Context())
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := memcloudtest.NewCloud(t, cloud.WithClock(clock.Now), cloud.WithAsyncCreates(asyncCreates))
	// rounds runs step until it is done, moving the cloud's clock past the operation each time it is not, and
	// returns how many times it ran.
	rounds := func(t *testing.T, step func() (step.Result, error)) int {
		t.Helper()
		for n := 1; n <= 20; n++ {
			res, err := step()
			require.NoError(t, err)
			if res.Done {
				return n
			}
			assert.Equal(t, conditions.ReasonResourcePending, res.Reason)
			assert.Contains(t, res.Message, "is being created (operation")
			assert.Positive(t, res.RequeueAfter)
			clock.Step(asyncCreates)
		}
		t.Fatal("not done after 20 rounds")
		return 0
	}

	s := clusterScope(nil)
	steps := clusterSteps(t, c)
	assert.Equal(t, 6, rounds(t, func() (step.Result, error) { return reconcileAll(ctx, steps, s) }),
		"one more reconcile for each of the network, the 2 subnets, the security group and the load balancer")
	assert.Len(t, s.Object.Status.Resources, 5)
	e := &machineEnv{cloud: c, ids: s.Object.Status.Resources}
	var err error
	e.instance, err = services.NewInstance(c, lookupOf(e))
	require.NoError(t, err)

	m0 := machineScope("m-0", true, []byte(userData))
	first, err := e.instance.Reconcile(ctx, m0)
	require.NoError(t, err)
	require.False(t, first.Done)
	assert.Empty(t, m0.Object.Spec.ProviderID, "no instance to record while its operation runs")
	assert.Empty(t, m0.Object.Status.Addresses)
	clock.Step(asyncCreates)
	assert.Equal(t, 1, rounds(t, func() (step.Result, error) { return e.instance.Reconcile(ctx, m0) }))
	assert.NotEmpty(t, m0.Object.Spec.ProviderID)

	lookup := services.NetworkLookupFunc(func(context.Context, string, scope.ClusterInfo) (services.ClusterNetwork, error) {
		return services.ClusterNetwork{SubnetIDs: map[v1beta2.SubnetRole]string{v1beta2.SubnetRoleWorker: e.ids[services.SubnetKey("worker")]},
			SecurityGroupID: e.ids[services.KeySecurityGroup]}, nil
	})
	group, err := services.NewInstanceGroup(c, lookup)
	require.NoError(t, err)
	pool := poolScope(2)
	assert.Equal(t, 2, rounds(t, func() (step.Result, error) { return group.Reconcile(ctx, pool) }))
	assert.Len(t, pool.Object.Status.Instances, 2)

	m1 := machineScope("m-1", false, []byte(userData))
	first, err = e.instance.Reconcile(ctx, m1)
	require.NoError(t, err)
	require.False(t, first.Done)
	del, err := e.instance.Delete(ctx, m1)
	require.NoError(t, err)
	assert.False(t, del.Done)
	assert.Equal(t, conditions.ReasonDeleting, del.Reason, "the delete waits for the create, not for dependent resources")
	clock.Step(asyncCreates)
	del, err = e.instance.Delete(ctx, m1)
	require.NoError(t, err)
	assert.True(t, del.Done)
	assert.Len(t, c.List(cloud.KindInstance), 3, "m-0 and the pool's 2 instances: what m-1's operation created is deleted")

	for _, d := range []func() (step.Result, error){
		func() (step.Result, error) { return e.instance.Delete(ctx, m0) },
		func() (step.Result, error) { return group.Delete(ctx, pool) },
		func() (step.Result, error) { return deleteAll(ctx, steps, s) },
	} {
		res, err := d()
		require.NoError(t, err)
		assert.True(t, res.Done)
	}
	assert.Empty(t, c.All())
}
