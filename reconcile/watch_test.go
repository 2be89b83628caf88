package reconcile_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
)

// TestClusterToInfraMachinesIndexed maps a Cluster through a cache with ClusterNameField, as the machine
// reconcilers' SetupWithManager wires it: the machines come from the kind's own informer, by the index.
func TestClusterToInfraMachinesIndexed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := env.Namespace(t, "rec")
	for _, m := range []struct{ name, cluster string }{{"a", "c1"}, {"b", "c1"}, {"c", "c2"}, {"d", ""}} {
		labels := map[string]string{}
		if m.cluster != "" {
			labels[contract.ClusterNameLabel] = m.cluster
		}
		require.NoError(t, env.Client.Create(ctx, &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: m.name, Labels: labels}}))
	}
	c, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}})
	require.NoError(t, err)
	require.NoError(t, reconcile.IndexClusterName(ctx, c, &testtypes.FooMachine{}))
	require.NoError(t, reconcile.IndexClusterName(ctx, c, &testtypes.FooMachine{}), "a second reconciler of the kind")
	go func() { _ = c.Start(ctx) }()
	require.True(t, c.WaitForCacheSync(ctx))
	cl, err := client.New(env.Config, client.Options{Scheme: env.Scheme, Cache: &client.CacheOptions{Reader: c}})
	require.NoError(t, err)

	// The index answers (a client without it fails on a field the API server does not know).
	list := &testtypes.FooMachineList{}
	require.NoError(t, cl.List(ctx, list, client.InNamespace(ns), client.MatchingFields{reconcile.ClusterNameField: "c1"}))
	assert.Len(t, list.Items, 2)

	cluster := &unstructured.Unstructured{}
	cluster.SetNamespace(ns)
	cluster.SetName("c1")
	want := []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: ns, Name: "a"}}, {NamespacedName: client.ObjectKey{Namespace: ns, Name: "b"}}}
	assert.ElementsMatch(t, want, reconcile.ClusterToInfraMachines(cl, testtypes.GroupVersion.WithKind("FooMachine"))(ctx, cluster))

	// A machine labelled later is found once the informer has it.
	m := &testtypes.FooMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "d"}, m))
	m.Labels = map[string]string{contract.ClusterNameLabel: "c1"}
	require.NoError(t, env.Client.Update(ctx, m))
	want = append(want, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "d"}})
	require.Eventually(t, func() bool {
		return len(reconcile.ClusterToInfraMachines(cl, testtypes.GroupVersion.WithKind("FooMachine"))(ctx, cluster)) == 3
	}, 10*time.Second, 20*time.Millisecond)
	assert.ElementsMatch(t, want, reconcile.ClusterToInfraMachines(cl, testtypes.GroupVersion.WithKind("FooMachine"))(ctx, cluster))
}

// TestIndexClusterNameKeepsNoCache: indexing a manager's cache must not keep it, and every object in it, alive
// after the manager is gone (a process that runs managers one after another, as a test suite does).
func TestIndexClusterNameKeepsNoCache(t *testing.T) {
	collected := make(chan struct{})
	func() {
		c, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme})
		require.NoError(t, err)
		require.NoError(t, reconcile.IndexClusterName(t.Context(), c, &testtypes.FooMachine{}))
		runtime.SetFinalizer(c, func(any) { close(collected) })
	}()
	for range 100 {
		runtime.GC()
		select {
		case <-collected:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the cache is still referenced after IndexClusterName")
}

func TestClusterChanged(t *testing.T) {
	cluster := func(edit func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
			"metadata": map[string]any{"name": "c", "namespace": "ns", "generation": int64(1), "labels": map[string]any{"a": "b"}},
			"spec":     map[string]any{"paused": false},
			"status": map[string]any{
				"initialization": map[string]any{"infrastructureProvisioned": false},
				"conditions":     []any{map[string]any{"type": "Available", "status": "False"}},
			},
		}}
		if edit != nil {
			edit(u)
		}
		return u
	}
	set := func(value any, path ...string) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, value, path...) }
	}
	now := metav1.Now()
	tests := []struct {
		name string
		new  *unstructured.Unstructured
		pass bool
	}{
		{"nothing changed (a resync)", cluster(nil), false},
		{"conditions changed", cluster(set([]any{map[string]any{"type": "Available", "status": "True"}}, "status", "conditions")), false},
		{"replica counters changed", cluster(set(int64(3), "status", "workers", "readyReplicas")), false},
		{"resource version only", cluster(func(u *unstructured.Unstructured) { u.SetResourceVersion("9") }), false},
		{"infrastructure provisioned (v1beta2)", cluster(set(true, "status", "initialization", "infrastructureProvisioned")), true},
		{"control plane initialized (v1beta2)", cluster(set(true, "status", "initialization", "controlPlaneInitialized")), true},
		{"infrastructure ready (v1beta1)", cluster(set(true, "status", "infrastructureReady")), true},
		{"control plane ready (v1beta1)", cluster(set(true, "status", "controlPlaneReady")), true},
		{"spec changed (generation)", cluster(func(u *unstructured.Unstructured) { u.SetGeneration(2) }), true},
		{"label changed", cluster(func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"a": "c"}) }), true},
		{"paused annotation added", cluster(func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{contract.PausedAnnotation: ""})
		}), true},
		{"deletion started", cluster(func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(&now) }), true},
	}
	p := reconcile.ClusterChanged()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.pass, p.Update(event.UpdateEvent{ObjectOld: cluster(nil), ObjectNew: tt.new}))
		})
	}
	assert.True(t, p.Create(event.CreateEvent{Object: cluster(nil)}), "create")
	assert.True(t, p.Delete(event.DeleteEvent{Object: cluster(nil)}), "delete")
	assert.True(t, p.Update(event.UpdateEvent{ObjectOld: &testtypes.FooCluster{}, ObjectNew: &testtypes.FooCluster{}}), "typed objects pass")
}

func TestMachineChanged(t *testing.T) {
	machine := func(edit func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
			"metadata": map[string]any{"name": "m", "namespace": "ns", "generation": int64(1), "labels": map[string]any{"a": "b"}},
			"spec":     map[string]any{"clusterName": "c"},
			"status":   map[string]any{"phase": "Provisioning"},
		}}
		if edit != nil {
			edit(u)
		}
		return u
	}
	set := func(value any, path ...string) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, value, path...) }
	}
	now := metav1.Now()
	tests := []struct {
		name string
		new  *unstructured.Unstructured
		pass bool
	}{
		{"nothing changed (a resync)", machine(nil), false},
		{"phase changed", machine(set("Provisioned", "status", "phase")), false},
		{"addresses copied from the InfraMachine", machine(set([]any{map[string]any{"type": "InternalIP", "address": "10.0.0.1"}}, "status", "addresses")), false},
		{"nodeRef set", machine(set(map[string]any{"name": "n"}, "status", "nodeRef")), false},
		{"resource version only", machine(func(u *unstructured.Unstructured) { u.SetResourceVersion("9") }), false},
		{"bootstrap data given (spec, so the generation)", machine(func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "m-bootstrap", "spec", "bootstrap", "dataSecretName")
			u.SetGeneration(2)
		}), true},
		{"label changed", machine(func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"a": "c"}) }), true},
		{"paused annotation added", machine(func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{contract.PausedAnnotation: ""})
		}), true},
		{"owner added", machine(func(u *unstructured.Unstructured) {
			u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "MachineSet", Name: "ms", UID: "u"}})
		}), true},
		{"deletion started", machine(func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(&now) }), true},
	}
	p := reconcile.MachineChanged()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.pass, p.Update(event.UpdateEvent{ObjectOld: machine(nil), ObjectNew: tt.new}))
		})
	}
	assert.True(t, p.Create(event.CreateEvent{Object: machine(nil)}), "create")
	assert.True(t, p.Delete(event.DeleteEvent{Object: machine(nil)}), "delete")
}
