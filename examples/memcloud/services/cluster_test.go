package services_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

const poll = 7 * time.Millisecond

// clusterSteps returns the cluster services in order.
func clusterSteps(t *testing.T, c *cloud.Cloud) []reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]] {
	t.Helper()
	n, err := services.NewNetwork(c)
	require.NoError(t, err)
	s, err := services.NewSubnets(c)
	require.NoError(t, err)
	g, err := services.NewSecurityGroup(c)
	require.NoError(t, err)
	l, err := services.NewLoadBalancer(c)
	require.NoError(t, err)
	return []reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]]{n, s, g, l}
}

// reconcileAll runs the steps in order, as the reconciler does, and stops at the first that is not done.
func reconcileAll(ctx context.Context, steps []reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]], s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	for _, st := range steps {
		res, err := st.Reconcile(ctx, s)
		if err != nil || !res.Done {
			return res, err
		}
	}
	return step.Result{Done: true}, nil
}

func deleteAll(ctx context.Context, steps []reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]], s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	for i := len(steps) - 1; i >= 0; i-- {
		res, err := steps[i].Delete(ctx, s)
		if err != nil || !res.Done {
			return res, err
		}
	}
	return step.Result{Done: true}, nil
}

func TestClusterStepsProvisionOnceAndThenOnlyRead(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	s := clusterScope(&v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1", Generation: 3},
		Spec: v1beta2.MemClusterSpec{FailureDomains: []string{"fd-b", "fd-a"}}})
	mc := s.Object
	steps := clusterSteps(t, c)

	res, err := reconcileAll(ctx, steps, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Len(t, mc.Status.Resources, 5)
	assert.Contains(t, mc.Status.Resources, services.SubnetKey("controlplane"), "subnets defaulted as the webhook does")
	assert.Contains(t, mc.Status.Resources, services.SubnetKey("worker"))
	for key, id := range mc.Status.Resources {
		persisted, _ := s.PersistedResourceID(key)
		assert.Equal(t, id, persisted, "%s is checkpointed at once", key)
	}
	assert.Len(t, s.Checkpoints(), 6, "one checkpoint per created resource, one for the endpoint")
	lb, err := c.GetLoadBalancer(ctx, mc.Status.Resources[services.KeyLoadBalancer])
	require.NoError(t, err)
	assert.Equal(t, contract.APIEndpoint{Host: lb.Host, Port: 6443}, mc.Spec.ControlPlaneEndpoint)
	assert.True(t, mc.IsProvisioned())
	require.Len(t, mc.Status.FailureDomains, 2)
	assert.Equal(t, "fd-a", mc.Status.FailureDomains[0].Name, "sorted by name")
	assert.Equal(t, int64(3), mc.Status.ObservedGeneration)
	for _, r := range c.All() {
		assert.Equal(t, "ns/c1", r.Tags[services.TagCluster], r.ID)
		assert.Equal(t, "cluster-key", r.Tags[ensure.TagOwnershipKey], r.ID)
	}

	c.ResetCounters()
	res, err = reconcileAll(ctx, steps, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Zero(t, c.Calls().Mutations, "a second pass changes nothing in the cloud")
	assert.Len(t, s.Checkpoints(), 6, "and checkpoints nothing")
	assert.Equal(t, 5, c.TotalCreated())
}

func TestClusterStepsSurviveLostResponsesAndSearchLag(t *testing.T) {
	tests := []struct {
		op   cloud.Op
		kind cloud.Kind
	}{
		{cloud.VerbCreate.On(cloud.KindNetwork), cloud.KindNetwork},
		{cloud.VerbCreate.On(cloud.KindSubnet), cloud.KindSubnet},
		{cloud.VerbCreate.On(cloud.KindSecurityGroup), cloud.KindSecurityGroup},
		{cloud.VerbCreate.On(cloud.KindLoadBalancer), cloud.KindLoadBalancer},
	}
	for _, tt := range tests {
		t.Run(tt.op.String(), func(t *testing.T) {
			ctx := t.Context()
			c := memcloudtest.NewCloud(t, cloud.WithFaults(cloud.FaultConfig{SearchLag: 5}))
			require.NoError(t, c.FailNext(tt.op, cloud.AfterChange))
			s := clusterScope(nil)
			steps := clusterSteps(t, c)

			_, err := reconcileAll(ctx, steps, s)
			require.ErrorIs(t, err, cloud.ErrInjected)
			assert.False(t, step.IsTerminal(err), "a lost response is retried")
			assert.NotContains(t, s.Object.Status.Resources, string(tt.kind), "the ID was never recorded")

			res, err := reconcileAll(ctx, steps, s)
			require.NoError(t, err)
			assert.True(t, res.Done)
			assert.Equal(t, 5, c.TotalCreated(), "the retry got the resource back by its token, tag search lagging")
			assert.Empty(t, c.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
		})
	}
}

func TestBadParametersNeverReachTheCloud(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	s := clusterScope(&v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"},
		Spec: v1beta2.MemClusterSpec{Network: v1beta2.NetworkSpec{CIDR: "10.0.0.0/33"}}})
	_, err := reconcileAll(ctx, clusterSteps(t, c), s)
	var term *step.TerminalError
	require.ErrorAs(t, err, &term)
	assert.Equal(t, conditions.ReasonInvalidParameters, term.Reason)
	assert.Contains(t, err.Error(), `cidr "10.0.0.0/33"`)
	assert.Zero(t, c.Calls().Total(), "no cloud call")
}

func TestClusterDeleteWaitsForInstancesAndToleratesNotFound(t *testing.T) {
	ctx := withPoll(t.Context())
	c := memcloudtest.NewCloud(t)
	s := clusterScope(nil)
	ids := func() map[string]string { return s.Object.Status.Resources }
	steps := clusterSteps(t, c)
	_, err := reconcileAll(ctx, steps, s)
	require.NoError(t, err)
	inst, err := c.CreateInstance(ctx, cloud.InstanceSpec{Name: "m", SubnetID: ids()[services.SubnetKey("worker")],
		Image: "img", Flavor: "small", SecurityGroupIDs: []string{ids()[services.KeySecurityGroup]}})
	require.NoError(t, err)

	res, err := deleteAll(ctx, steps, s)
	require.NoError(t, err, "a resource in use is not an error: the step is not done yet")
	assert.False(t, res.Done, "the security group is in use")
	assert.Equal(t, services.ReasonDependencyViolation, res.Reason)
	assert.Equal(t, poll, res.RequeueAfter)
	assert.Equal(t, fmt.Sprintf(`resource "security-group" (id %q) still exists after its delete: resources that depend on it remain`, ids()[services.KeySecurityGroup]), res.Message)
	assert.NotContains(t, ids(), services.KeyLoadBalancer, "the load balancer went first")
	assert.Contains(t, ids(), services.KeySecurityGroup, "the security group is still recorded")

	require.NoError(t, c.DeleteInstance(ctx, inst.ID))
	require.NoError(t, c.DeleteSubnet(ctx, ids()[services.SubnetKey("worker")]), "deleted out of band")
	res, err = deleteAll(ctx, steps, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Empty(t, c.All(), "every resource is gone")
	assert.Empty(t, ids(), "and forgotten")

	res, err = deleteAll(ctx, steps, s)
	require.NoError(t, err)
	assert.True(t, res.Done, "deleting again is done at once")
}

func TestConstructorsRejectNilCloud(t *testing.T) {
	_, err := services.NewNetwork(nil)
	assert.ErrorContains(t, err, "cannot create the network service: cloud must not be nil")
	_, err = services.NewInstance(memcloudtest.NewCloud(t), nil)
	assert.ErrorContains(t, err, "network lookup must not be nil")
}

func TestSubnetKeyIsALabel(t *testing.T) {
	long := "a123456789b123456789c123456789d123456789e123456789f123456789g12"
	tests := []struct{ name, want string }{
		{"worker", "subnet-worker"},
		{long, services.SubnetKey(long)},
	}
	for _, tt := range tests {
		got := services.SubnetKey(tt.name)
		assert.Equal(t, tt.want, got)
		assert.NoError(t, scope.ValidateResourceKey(got), got)
	}
	assert.NotEqual(t, services.SubnetKey(long), services.SubnetKey(long[:62]+"x"), "distinct names keep distinct keys")
}
