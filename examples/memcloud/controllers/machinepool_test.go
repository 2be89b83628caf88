package controllers_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/capacity"
	"github.com/capkit/capkit/scope/scopetest"
)

// TestMachinePoolReconciler provisions a MemMachinePool of a provisioned MemCluster on a real API server,
// scales it and deletes it: the instance group follows spec.replicas of the MachinePool, the pool records its
// live instances, a steady state writes nothing, and the delete leaves no instance.
func TestMachinePoolReconciler(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, memcloudtest.Cluster{Name: "c3", ControlPlane: 1})
	f.provisionCluster(t)
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "pool-data"},
		Data: map[string][]byte{"value": memcloudtest.BootstrapData("c3", "pool", false)}}))
	mp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
		"metadata": map[string]any{"namespace": f.ns, "name": "pool", "labels": map[string]any{contract.ClusterNameLabel: "c3"}},
		"spec": map[string]any{"clusterName": "c3", "replicas": int64(2), "template": map[string]any{"spec": map[string]any{
			"clusterName": "c3", "bootstrap": map[string]any{"dataSecretName": "pool-data"},
			"infrastructureRef": map[string]any{"apiGroup": v1beta2.GroupName, "kind": "MemMachinePool", "name": "pool"}}}},
	}}
	require.NoError(t, env.Client.Create(ctx, mp))
	pool := &v1beta2.MemMachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "pool",
		Labels:          map[string]string{contract.ClusterNameLabel: "c3"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "MachinePool", Name: "pool", UID: mp.GetUID()}}}}
	require.NoError(t, env.Client.Create(ctx, pool))

	cc := scopetest.NewCountingClient(env.Client)
	r, err := controllers.NewMachinePoolReconciler(cc, f.cloud, controllers.WithReconcileOptions(reconcile.WithPollInterval(10*time.Millisecond)))
	require.NoError(t, err)
	reconcileUntilReady := func(replicas int) *v1beta2.MemMachinePool {
		t.Helper()
		got := &v1beta2.MemMachinePool{}
		for range 10 {
			_, err := r.Reconcile(ctx, f.req("pool"))
			require.NoError(t, err)
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(pool), got))
			if conditions.IsTrue(got, v1beta2.ReadyCondition) && len(got.Spec.ProviderIDList) == replicas {
				return got
			}
		}
		t.Fatalf("the MemMachinePool did not reach %d ready instances: %+v", replicas, got.Status)
		return nil
	}
	got := reconcileUntilReady(2)
	assert.Equal(t, int32(2), got.Status.Replicas)
	assert.True(t, got.Status.Ready && got.IsProvisioned())
	assert.Equal(t, []string{v1beta2.MemMachinePoolFinalizer}, got.Finalizers)
	assert.Equal(t, 2, countGroupInstances(f.cloud))

	cc.Reset()
	f.cloud.ResetCounters()
	_, err = r.Reconcile(ctx, f.req("pool"))
	require.NoError(t, err)
	after := &v1beta2.MemMachinePool{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(pool), after))
	assert.Zero(t, cc.Writes(), "a steady state writes nothing: %v\nbefore %+v\nafter  %+v", cc.Log(), got.Status, after.Status)
	assert.Zero(t, f.cloud.Calls().Mutations, "%+v", f.cloud.Calls())

	require.NoError(t, unstructured.SetNestedField(mp.Object, int64(4), "spec", "replicas"))
	require.NoError(t, env.Client.Update(ctx, mp))
	got = reconcileUntilReady(4)
	assert.Equal(t, int32(4), got.Status.Replicas)
	assert.Equal(t, 4, countGroupInstances(f.cloud))

	require.NoError(t, env.Client.Delete(ctx, got))
	for range 5 {
		_, err = r.Reconcile(ctx, f.req("pool"))
		require.NoError(t, err)
	}
	err = env.Client.Get(ctx, client.ObjectKeyFromObject(pool), &v1beta2.MemMachinePool{})
	assert.True(t, client.IgnoreNotFound(err) == nil && err != nil, "deleted once its group is gone")
	assert.Zero(t, countGroupInstances(f.cloud))
	assert.Zero(t, f.cloud.Count(cloud.KindInstanceGroup))
}

func countGroupInstances(c *cloud.Cloud) int {
	n := 0
	for _, r := range c.List(cloud.KindInstance) {
		if r.Tags[cloud.TagInstanceGroup] != "" {
			n++
		}
	}
	return n
}

// TestTemplateCapacityIsReported: the MemMachineTemplate controller writes the capacity of the template's
// flavor to its status, where the cluster autoscaler reads it to scale a MachineDeployment up from zero.
func TestTemplateCapacityIsReported(t *testing.T) {
	ctx := context.Background()
	p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{WebhooksOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Stop()) })
	ns := env.Namespace(t, "controllers")
	tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	tmpl.Spec.Template.Spec = v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorLarge}
	require.NoError(t, env.Client.Create(ctx, tmpl))
	r, err := capacity.NewReconcilerFor(env.Client, &v1beta2.MemMachineTemplate{},
		services.TemplateCapacity)
	require.NoError(t, err)
	_, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tmpl)})
	require.NoError(t, err)
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(v1beta2.GroupVersion.WithKind("MemMachineTemplate"))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(tmpl), got))
	status, _, _ := unstructured.NestedMap(got.Object, "status")
	assert.Equal(t, map[string]any{"capacity": map[string]any{"cpu": "8", "memory": "32Gi"},
		"nodeInfo": map[string]any{"architecture": "amd64", "operatingSystem": "linux"}}, status,
		"status.capacity and status.nodeInfo, the paths of Cluster API's autoscaling-from-zero contract")
}
