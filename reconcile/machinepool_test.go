package reconcile_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// poolScope is what the machine pool services see.
type poolScope = scope.MachinePoolScoper[*testtypes.FooMachinePool]

// fakeGroup is an instance group: its size follows the MachinePool's replicas, one instance ID per slot.
type fakeGroup struct {
	instances map[string]bool
	next      int
	calls     []string
	dataReads int
}

func (g *fakeGroup) service() reconcile.Service[poolScope] {
	return reconcile.ServiceFuncs[poolScope]{
		ReconcileFunc: func(ctx context.Context, s poolScope) (step.Result, error) {
			g.calls = append(g.calls, "Reconcile")
			want := int(s.MachinePool().Replicas)
			for len(g.instances) < want {
				if _, _, err := s.BootstrapData(ctx); err != nil { // an instance boots with the pool's data
					return step.Result{}, err
				}
				g.dataReads++
				g.next++
				g.instances[fmt.Sprintf("i-%d", g.next)] = true
			}
			for id := range g.instances {
				if len(g.instances) == want {
					break
				}
				delete(g.instances, id)
			}
			ids := make([]string, 0, len(g.instances))
			for id := range g.instances {
				ids = append(ids, "foo://"+id)
			}
			if err := s.SetInstances(ids); err != nil {
				return step.Result{}, err
			}
			s.InfraMachinePool().SetProvisioned(true)
			return step.Result{Done: true}, nil
		},
		DeleteFunc: func(context.Context, poolScope) (step.Result, error) {
			g.calls = append(g.calls, "Delete")
			g.instances = map[string]bool{}
			return step.Result{Done: true}, nil
		},
	}
}

// newPool creates a Cluster with its infrastructure provisioned, a MachinePool of replicas (with a bootstrap
// data secret or not) and its FooMachinePool.
func newPool(t *testing.T, ns string, replicas int64, dataSecret string) (*testtypes.FooMachinePool, *unstructured.Unstructured) {
	t.Helper()
	ctx := t.Context()
	createCluster(t, ns, "c1", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, true, "status", "initialization", "infrastructureProvisioned")
	})
	tmpl := map[string]any{"clusterName": "c1", "bootstrap": map[string]any{},
		"infrastructureRef": map[string]any{"apiGroup": testtypes.GroupVersion.Group, "kind": "FooMachinePool", "name": "pool"}}
	if dataSecret != "" {
		tmpl["bootstrap"] = map[string]any{"dataSecretName": dataSecret}
		createBootstrapSecret(t, ns, dataSecret)
	}
	mp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
		"metadata": map[string]any{"namespace": ns, "name": "pool", "labels": map[string]any{contract.ClusterNameLabel: "c1"}},
		"spec":     map[string]any{"clusterName": "c1", "replicas": replicas, "template": map[string]any{"spec": tmpl}},
	}}
	require.NoError(t, env.Client.Create(ctx, mp))
	obj := &testtypes.FooMachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pool",
		Labels: map[string]string{contract.ClusterNameLabel: "c1"}, OwnerReferences: []metav1.OwnerReference{ownerRef(mp)}}}
	require.NoError(t, env.Client.Create(ctx, obj))
	return obj, mp
}

func newPoolReconciler(t *testing.T, g *fakeGroup) (*reconcile.MachinePoolReconciler[*testtypes.FooMachinePool], *scopetest.CountingClient) {
	t.Helper()
	cc := scopetest.NewCountingClient(env.Client)
	r, err := reconcile.NewMachinePoolReconcilerFor(cc, &testtypes.FooMachinePool{},
		[]reconcile.Step[poolScope]{{Name: "Instances", Service: g.service()}},
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	require.NoError(t, err)
	return r, cc
}

func TestMachinePoolReconcilerScales(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "rec")
	obj, mp := newPool(t, ns, 3, "pool-data")
	g := &fakeGroup{instances: map[string]bool{}}
	r, _ := newPoolReconciler(t, g)

	_, err := r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	got := get(t, &testtypes.FooMachinePool{ObjectMeta: obj.ObjectMeta})
	assert.Contains(t, got.Finalizers, r.Finalizer())
	assert.Len(t, got.Spec.ProviderIDList, 3)
	assert.Equal(t, int32(3), got.Status.Replicas, "status.replicas in step with the list")
	assert.True(t, got.IsProvisioned())
	assert.True(t, got.Status.Ready, "status.ready, which Cluster API v1.14 reads for pools")
	assert.True(t, conditions.IsTrue(got, conditions.Ready))
	assert.Equal(t, 3, g.dataReads)

	for _, n := range []int64{5, 2, 0} {
		require.NoError(t, unstructured.SetNestedField(mp.Object, n, "spec", "replicas"))
		require.NoError(t, env.Client.Update(ctx, mp))
		_, err := r.Reconcile(ctx, req(obj))
		require.NoError(t, err)
		got := get(t, &testtypes.FooMachinePool{ObjectMeta: obj.ObjectMeta})
		assert.Len(t, got.Spec.ProviderIDList, int(n), "after scaling to %d", n)
		assert.Equal(t, int32(n), got.Status.Replicas)
		assert.Len(t, g.instances, int(n))
	}

	require.NoError(t, env.Client.Delete(ctx, obj))
	_, err = r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Equal(t, "Delete", g.calls[len(g.calls)-1])
	err = env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &testtypes.FooMachinePool{})
	assert.True(t, client.IgnoreNotFound(err) == nil && err != nil, "the finalizer is removed once the group is deleted")
}

func TestMachinePoolReconcilerWaitsForBootstrapData(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "rec")
	obj, _ := newPool(t, ns, 2, "")
	g := &fakeGroup{instances: map[string]bool{}}
	r, _ := newPoolReconciler(t, g)
	_, err := r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Empty(t, g.calls, "no cloud call before the bootstrap data exists")
	got := get(t, &testtypes.FooMachinePool{ObjectMeta: obj.ObjectMeta})
	assert.Contains(t, got.Finalizers, r.Finalizer(), "the finalizer is persisted first")
	c := conditions.Get(got, "InstancesReady")
	require.NotNil(t, c)
	assert.Equal(t, conditions.ReasonWaitingForBootstrapData, c.Reason)
}

func TestMachinePoolReconcilerWaitsForItsOwner(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "rec")
	obj := &testtypes.FooMachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lonely"}}
	require.NoError(t, env.Client.Create(ctx, obj))
	g := &fakeGroup{instances: map[string]bool{}}
	r, cc := newPoolReconciler(t, g)
	res, err := r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Zero(t, res)
	assert.Empty(t, g.calls)
	assert.Zero(t, cc.Writes(), "nothing is written before Cluster API sets the owner")
}

func TestMachinePoolToInfraMachinePool(t *testing.T) {
	mp := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
		"metadata": map[string]any{"namespace": "ns", "name": "pool"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"infrastructureRef": map[string]any{"apiGroup": testtypes.GroupVersion.Group, "kind": "FooMachinePool", "name": "infra"}}}}}}
	got := reconcile.MachinePoolToInfraMachinePool(testtypes.GroupVersion.WithKind("FooMachinePool").GroupKind())(t.Context(), mp)
	require.Len(t, got, 1)
	assert.Equal(t, client.ObjectKey{Namespace: "ns", Name: "infra"}, got[0].NamespacedName)
	other := reconcile.MachinePoolToInfraMachinePool(testtypes.GroupVersion.WithKind("BarMachinePool").GroupKind())(t.Context(), mp)
	assert.Empty(t, other)
}
