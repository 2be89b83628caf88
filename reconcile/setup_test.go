package reconcile_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/event"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
)

func TestPredicates(t *testing.T) {
	obj := func(labels, annotations map[string]string) client.Object {
		return &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations}}
	}
	plain := obj(nil, nil)
	tests := []struct {
		name string
		pass bool
		got  bool
	}{
		{"not paused passes", true, reconcile.ResourceNotPaused().Generic(event.GenericEvent{Object: plain})},
		{"paused is filtered", false, reconcile.ResourceNotPaused().Generic(event.GenericEvent{Object: obj(nil, map[string]string{contract.PausedAnnotation: ""})})},
		{"not managed passes", true, reconcile.ResourceNotExternallyManaged().Create(event.CreateEvent{Object: plain})},
		{"managed is filtered", false, reconcile.ResourceNotExternallyManaged().Create(event.CreateEvent{Object: obj(nil, map[string]string{contract.ManagedByAnnotation: ""})})},
		{"empty filter passes all", true, reconcile.ResourceHasFilterLabel("").Create(event.CreateEvent{Object: plain})},
		{"matching filter passes", true, reconcile.ResourceHasFilterLabel("a").Create(event.CreateEvent{Object: obj(map[string]string{contract.WatchFilterLabel: "a"}, nil)})},
		{"other filter is filtered", false, reconcile.ResourceHasFilterLabel("a").Create(event.CreateEvent{Object: obj(map[string]string{contract.WatchFilterLabel: "b"}, nil)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.pass, tt.got) })
	}
}

func TestOwnerMappers(t *testing.T) {
	gk := schema.GroupKind{Group: "infrastructure.capkit.io", Kind: "FooCluster"}
	core := func(ref map[string]any) client.Object {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
			"metadata": map[string]any{"namespace": "ns", "name": "c"}}}
		if ref != nil {
			_ = unstructured.SetNestedMap(u.Object, ref, "spec", "infrastructureRef")
		}
		return u
	}
	want := []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "infra"}}}
	tests := []struct {
		name string
		obj  client.Object
		want []ctrl.Request
	}{
		{"v1beta2 ref", core(map[string]any{"apiGroup": gk.Group, "kind": gk.Kind, "name": "infra"}), want},
		{"v1beta1 ref", core(map[string]any{"apiVersion": gk.Group + "/v1alpha1", "kind": gk.Kind, "name": "infra"}), want},
		{"other kind", core(map[string]any{"apiGroup": gk.Group, "kind": "Other", "name": "infra"}), nil},
		{"other group", core(map[string]any{"apiGroup": "x.io", "kind": gk.Kind, "name": "infra"}), nil},
		{"no ref", core(nil), nil},
		{"typed object", &testtypes.FooCluster{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, reconcile.ClusterToInfraCluster(gk)(t.Context(), tt.obj))
			assert.Equal(t, tt.want, reconcile.MachineToInfraMachine(gk)(t.Context(), tt.obj))
		})
	}
}

func TestClusterToInfraMachines(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	for _, m := range []struct{ name, cluster string }{{"a", "c1"}, {"b", "c1"}, {"c", "c2"}} {
		require.NoError(t, env.Client.Create(ctx, &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: m.name,
			Labels: map[string]string{contract.ClusterNameLabel: m.cluster}}}))
	}
	cluster := &unstructured.Unstructured{}
	cluster.SetNamespace(ns)
	cluster.SetName("c1")
	got := reconcile.ClusterToInfraMachines(env.Client, testtypes.GroupVersion.WithKind("FooMachine"))(ctx, cluster)
	assert.ElementsMatch(t, []ctrl.Request{
		{NamespacedName: client.ObjectKey{Namespace: ns, Name: "a"}},
		{NamespacedName: client.ObjectKey{Namespace: ns, Name: "b"}},
	}, got)
	assert.Nil(t, reconcile.ClusterToInfraMachines(env.Client, schema.GroupVersionKind{Group: "no.such", Version: "v1", Kind: "Thing"})(ctx, cluster))
}

func TestSetupWithManager(t *testing.T) {
	// controller-runtime refuses a second controller of the same name in one process unless told otherwise:
	// this test's managers (go test -count=2) are such a second one.
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)}})
	require.NoError(t, err)
	cr, err := reconcile.NewClusterReconcilerFor(mgr.GetClient(), &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{{Name: "A", Service: reconcile.ServiceFuncs[clusterScope]{}}}, reconcile.WithWatchFilter("x"))
	require.NoError(t, err)
	require.NoError(t, cr.SetupWithManager(mgr))
	mr, err := reconcile.NewMachineReconcilerFor(mgr.GetClient(), &testtypes.FooMachine{},
		[]reconcile.Step[machineScope]{{Name: "A", Service: reconcile.ServiceFuncs[machineScope]{}}},
		reconcile.WithEventRecorder(mgr.GetEventRecorder("test")))
	require.NoError(t, err)
	require.NoError(t, mr.SetupWithManager(mgr))
}

func TestWithMaxConcurrentReconciles(t *testing.T) {
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)}})
	require.NoError(t, err)
	tests := []struct {
		name    string
		n       int
		wantErr string
	}{
		{name: "one", n: 1},
		{name: "several", n: 8},
		{name: "zero", n: 0, wantErr: "max concurrent reconciles 0 must be positive"},
		{name: "negative", n: -2, wantErr: "max concurrent reconciles -2 must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := reconcile.NewMachineReconcilerFor(mgr.GetClient(), &testtypes.FooMachine{},
				[]reconcile.Step[machineScope]{{Name: "A", Service: reconcile.ServiceFuncs[machineScope]{}}},
				reconcile.WithMaxConcurrentReconciles(tt.n))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.NoError(t, r.SetupWithManager(mgr))
		})
	}
}

// TestSetupWithManagerTakesTheManagersRecorder: an event always has somewhere to go; a recorder given with
// WithEventRecorder is kept.
func TestSetupWithManagerTakesTheManagersRecorder(t *testing.T) {
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)}})
	require.NoError(t, err)
	steps := []reconcile.Step[clusterScope]{{Name: "A", Service: reconcile.ServiceFuncs[clusterScope]{}}}
	r, err := reconcile.NewClusterReconcilerFor(mgr.GetClient(), &testtypes.FooCluster{}, steps)
	require.NoError(t, err)
	assert.Nil(t, r.RecorderForTest(), "no recorder before SetupWithManager")
	require.NoError(t, r.SetupWithManager(mgr))
	assert.NotNil(t, r.RecorderForTest(), "the manager's")

	own := &fakecloud.Recorder{}
	r, err = reconcile.NewClusterReconcilerFor(mgr.GetClient(), &testtypes.FooCluster{}, steps, reconcile.WithEventRecorder(own))
	require.NoError(t, err)
	require.NoError(t, r.SetupWithManager(mgr))
	assert.Same(t, own, r.RecorderForTest(), "WithEventRecorder wins")
}

// TestControllersUseThePlainQueue: controller-runtime v0.24.1's priority queue, its default, can keep a
// controller with two workers or more from ever stopping (kubernetes-sigs/controller-runtime#3538), so capkit's
// controllers use the plain queue with the same per-object backoff, unless the manager's options choose a queue.
func TestControllersUseThePlainQueue(t *testing.T) {
	tests := []struct {
		name      string
		manager   *bool
		wantQueue *bool // nil: the manager's choice
	}{
		{name: "manager silent", wantQueue: ptr.To(false)},
		{name: "manager chooses the priority queue", manager: ptr.To(true)},
		{name: "manager chooses the plain queue", manager: ptr.To(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
				Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true), UsePriorityQueue: tt.manager}})
			require.NoError(t, err)
			r, err := reconcile.NewMachineReconcilerFor(mgr.GetClient(), &testtypes.FooMachine{},
				[]reconcile.Step[machineScope]{{Name: "A", Service: reconcile.ServiceFuncs[machineScope]{}}},
				reconcile.WithMaxConcurrentReconciles(10))
			require.NoError(t, err)
			o := r.ControllerOptionsForTest(mgr)
			assert.Equal(t, 10, o.MaxConcurrentReconciles)
			assert.Equal(t, tt.wantQueue, o.UsePriorityQueue)
			if tt.wantQueue == nil {
				assert.Nil(t, o.RateLimiter, "the manager's queue keeps controller-runtime's backoff")
				return
			}
			require.NotNil(t, o.RateLimiter)
			req := crreconcile.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "m"}}
			assert.Equal(t, 5*time.Millisecond, o.RateLimiter.When(req), "first retry")
			assert.Equal(t, 10*time.Millisecond, o.RateLimiter.When(req), "second retry")
			for range 30 {
				o.RateLimiter.When(req)
			}
			assert.Equal(t, 1000*time.Second, o.RateLimiter.When(req), "capped")
			other := crreconcile.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "other"}}
			assert.Equal(t, 5*time.Millisecond, o.RateLimiter.When(other), "per object: no bucket shared by the controller")
		})
	}
}
