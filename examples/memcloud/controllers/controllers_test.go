package controllers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/scope/scopetest"
)

// fixture is a cluster whose objects exist on the API server (created by providertest's lifecycle driver,
// which plays Cluster API's part), with reconcilers called by the test itself through a counting client,
// and the webhooks served.
type fixture struct {
	ns      string
	life    *lifecycle.Driver
	cloud   *cloud.Cloud
	writes  *scopetest.CountingClient
	cluster interface {
		Reconcile(context.Context, ctrl.Request) (ctrl.Result, error)
	}
	machine interface {
		Reconcile(context.Context, ctrl.Request) (ctrl.Result, error)
	}
}

func newFixture(t *testing.T, spec memcloudtest.Cluster, opts ...cloud.Option) *fixture {
	t.Helper()
	ctx := context.Background()
	p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{WebhooksOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })

	cl := memcloudtest.NewCloud(t, opts...)
	spec.Namespace = env.Namespace(t, "controllers")
	l, err := lifecycle.New(env.Client, memcloudtest.LifecycleSpec(spec, memcloudtest.LeakChecker(cl)))
	require.NoError(t, err)
	require.NoError(t, l.Create(ctx), "objects with their owner references")

	cc := scopetest.NewCountingClient(env.Client)
	cr, err := controllers.NewClusterReconciler(cc, cl)
	require.NoError(t, err)
	mr, err := controllers.NewMachineReconciler(cc, cl)
	require.NoError(t, err)
	return &fixture{ns: spec.Namespace, life: l, cloud: cl, writes: cc, cluster: cr, machine: mr}
}

func (f *fixture) req(name string) ctrl.Request {
	return ctrl.Request{NamespacedName: types.NamespacedName{Namespace: f.ns, Name: name}}
}

func (f *fixture) clusterName() string { return f.life.Spec().ClusterName }

// provisionCluster reconciles the MemCluster until it is provisioned and lets the driver mark the Cluster.
func (f *fixture) provisionCluster(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	for range 3 {
		_, err := f.cluster.Reconcile(ctx, f.req(f.clusterName()))
		require.NoError(t, err)
	}
	mc := &v1beta2.MemCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: f.clusterName()}, mc))
	require.True(t, ptr.Deref(mc.Status.Initialization.Provisioned, false), "MemCluster provisioned: %+v", mc.Status.Conditions)
	require.NoError(t, f.life.SimulateCAPI(ctx))
}

func (f *fixture) memMachine(t *testing.T, name string) *v1beta2.MemMachine {
	t.Helper()
	mm := &v1beta2.MemMachine{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: f.ns, Name: name}, mm))
	return mm
}

func TestClusterReconcilerProvisionsAndIsQuietAfterwards(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t, memcloudtest.Cluster{Name: "c1", ControlPlane: 1, FailureDomains: []string{"fd-a", "fd-b"}})
	_, err := f.cluster.Reconcile(ctx, f.req("c1"))
	require.NoError(t, err)

	mc := &v1beta2.MemCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "c1"}, mc))
	assert.True(t, ptr.Deref(mc.Status.Initialization.Provisioned, false), "one reconcile provisions the cluster")
	assert.Regexp(t, `^lb-[0-9a-f]{8}\.memcloud\.local$`, mc.Spec.ControlPlaneEndpoint.Host)
	assert.Equal(t, int32(6443), mc.Spec.ControlPlaneEndpoint.Port)
	assert.Len(t, mc.Status.FailureDomains, 2)
	assert.True(t, conditions.IsTrue(mc, v1beta2.ReadyCondition))
	for _, c := range []string{v1beta2.NetworkReadyCondition, v1beta2.SubnetsReadyCondition, v1beta2.SecurityGroupReadyCondition, v1beta2.LoadBalancerReadyCondition} {
		assert.True(t, conditions.IsTrue(mc, c), "the API documents %s", c)
	}
	assert.Equal(t, []string{v1beta2.MemClusterFinalizer}, mc.Finalizers, "the finalizer the API documents")
	for _, k := range []cloud.Kind{cloud.KindNetwork, cloud.KindSecurityGroup, cloud.KindLoadBalancer} {
		assert.Equal(t, 1, f.cloud.Count(k), k)
	}
	assert.Equal(t, 2, f.cloud.Count(cloud.KindSubnet))
	assert.Len(t, mc.Status.Resources, 5, "network, 2 subnets, security group, load balancer")
	t.Logf("API writes to provision a MemCluster: %d %v", f.writes.Writes(), f.writes.Log())

	f.writes.Reset()
	f.cloud.ResetCounters()
	_, err = f.cluster.Reconcile(ctx, f.req("c1"))
	require.NoError(t, err)
	assert.Zero(t, f.writes.Writes(), "a no-op reconcile writes nothing: %v", f.writes.Log())
	assert.Zero(t, f.cloud.Calls().Mutations, "and changes nothing in the cloud")
}

func TestMachineReconcilerWriteBudget(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t, memcloudtest.Cluster{Name: "c2", ControlPlane: 1, Workers: 1})
	f.provisionCluster(t)

	for _, name := range f.life.MachineNames() {
		t.Run(name, func(t *testing.T) {
			f.writes.Reset()
			res, err := f.machine.Reconcile(ctx, f.req(name))
			require.NoError(t, err)
			mm := f.memMachine(t, name)
			require.True(t, ptr.Deref(mm.Status.Initialization.Provisioned, false), "%+v", mm.Status.Conditions)
			assert.Equal(t, 3, f.writes.Writes(), "finalizer + providerID checkpoint + status at Close: %v", f.writes.Log())
			assert.Equal(t, []scopetest.Write{
				{Verb: "patch", Kind: "*v1beta2.MemMachine", Name: f.ns + "/" + name},
				{Verb: "patch", Kind: "*v1beta2.MemMachine", Name: f.ns + "/" + name},
				{Verb: "patch", SubResource: "status", Kind: "*v1beta2.MemMachine", Name: f.ns + "/" + name},
			}, f.writes.Log())
			assert.Zero(t, res.RequeueAfter)

			id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
			require.NoError(t, err)
			data, err := f.cloud.InstanceUserData(id)
			require.NoError(t, err)
			assert.Contains(t, string(data), memcloudtest.BootstrapTokenMarker, "the bootstrap data is the user data")
			assert.Equal(t, string(cloud.InstanceRunning), mm.Status.InstanceState)
			assert.Equal(t, []string{v1beta2.MemMachineFinalizer}, mm.Finalizers, "the finalizer the API documents")
			assert.True(t, conditions.IsTrue(mm, v1beta2.InstanceReadyCondition))
			assert.Len(t, mm.Status.Addresses, 2)

			f.writes.Reset()
			f.cloud.ResetCounters()
			_, err = f.machine.Reconcile(ctx, f.req(name))
			require.NoError(t, err)
			assert.Zero(t, f.writes.Writes(), "no-op reconcile: %v", f.writes.Log())
			calls := f.cloud.Calls()
			assert.Zero(t, calls.Mutations, "no-op reconcile: %v", calls.Calls)
			assert.Equal(t, 1, calls.Of(cloud.VerbGet, cloud.KindInstance), "the instance is read once: %v", calls.Calls)
			wantReads := 1
			if strings.Contains(name, "-cp-") {
				wantReads = 2 // and the load balancer it is a target of
			}
			assert.Equal(t, wantReads, calls.Total(), "%v", calls.Calls)
			for _, r := range f.writes.ReadLog() {
				assert.NotEqual(t, "*v1.Secret", r.Kind, "a provisioned machine never reads its bootstrap data: %v", f.writes.ReadLog())
			}
		})
	}
	lbs := f.cloud.List(cloud.KindLoadBalancer)
	require.Len(t, lbs, 1)
}

func TestMachineReconcilerWaitsForPendingInstance(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t, memcloudtest.Cluster{Name: "c3", ControlPlane: 1}, cloud.WithPendingGets(1))
	f.provisionCluster(t)
	name := f.life.MachineNames()[0]

	// The create returns the instance pending; the first read still sees it pending, the second running.
	f.writes.Reset()
	for i := range 2 {
		res, err := f.machine.Reconcile(ctx, f.req(name))
		require.NoError(t, err)
		assert.Positive(t, res.RequeueAfter, "a pending instance is looked at again")
		mm := f.memMachine(t, name)
		assert.False(t, ptr.Deref(mm.Status.Initialization.Provisioned, false))
		assert.NotEmpty(t, mm.Spec.ProviderID, "the provider ID is the checkpoint of the create")
		assert.Equal(t, "InstancePending", conditions.GetReason(mm, v1beta2.InstanceReadyCondition), "reconcile %d", i)
		assert.Equal(t, string(cloud.InstancePending), mm.Status.InstanceState)
		assert.Len(t, mm.Status.Addresses, 2, "the addresses are reported while the instance boots")
		assert.Equal(t, 3, f.writes.Writes(), "nothing more to write while it boots: %v", f.writes.Log())
	}

	_, err := f.machine.Reconcile(ctx, f.req(name))
	require.NoError(t, err)
	mm := f.memMachine(t, name)
	assert.True(t, ptr.Deref(mm.Status.Initialization.Provisioned, false))
	assert.Equal(t, 4, f.writes.Writes(), "one more status write when the instance runs: %v", f.writes.Log())
	assert.Equal(t, 1, f.cloud.Count(cloud.KindInstance))
}

func TestDeleteRemovesEveryCloudResource(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t, memcloudtest.Cluster{Name: "c4", ControlPlane: 1, Workers: 1})
	f.provisionCluster(t)
	for _, name := range f.life.MachineNames() {
		_, err := f.machine.Reconcile(ctx, f.req(name))
		require.NoError(t, err)
	}
	require.Equal(t, 2, f.cloud.Count(cloud.KindInstance))

	// Cluster API's order: the MemMachines first, then, once they are gone, the MemCluster.
	for _, name := range f.life.MachineNames() {
		require.NoError(t, env.Client.Delete(ctx, f.memMachine(t, name)))
		_, err := f.machine.Reconcile(ctx, f.req(name))
		require.NoError(t, err)
		assert.True(t, apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: name}, &v1beta2.MemMachine{})),
			"the finalizer of %s is removed", name)
	}
	assert.Zero(t, f.cloud.Count(cloud.KindInstance))
	mc := &v1beta2.MemCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "c4"}, mc))
	require.NoError(t, env.Client.Delete(ctx, mc))
	_, err := f.cluster.Reconcile(ctx, f.req("c4"))
	require.NoError(t, err)
	assert.Empty(t, f.cloud.All(), "every cloud resource is deleted")
	assert.True(t, apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "c4"}, mc)), "the finalizer of the MemCluster is removed")
}

func TestConstructorsRejectMissingArguments(t *testing.T) {
	cl := memcloudtest.NewCloud(t)
	_, err := controllers.NewClusterReconciler(env.Client, nil)
	assert.ErrorContains(t, err, "cloud must not be nil")
	_, err = controllers.NewMachineReconciler(nil, cl)
	assert.ErrorContains(t, err, "client is nil")
	assert.ErrorContains(t, controllers.SetupWithManager(nil, cl), "manager is nil")
}
