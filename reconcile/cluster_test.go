package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// clusterScope is what the cluster services see: the narrow interface, not the concrete scope.
type clusterScope = scope.ClusterScoper[*testtypes.FooCluster]

// clusterFixture is a FooCluster reconciler with a Network step (Ensure on a fake cloud) and a LoadBalancer
// step, wired to a counting client.
type clusterFixture struct {
	cloud    *fakecloud.Cloud
	cc       *scopetest.CountingClient
	rec      *fakecloud.Recorder
	r        *reconcile.ClusterReconciler[*testtypes.FooCluster]
	order    []string
	lbResult step.Result
	lbErr    error
	delDone  bool
}

func newClusterFixture(t *testing.T) *clusterFixture {
	t.Helper()
	f := &clusterFixture{cloud: fakecloud.New(), cc: scopetest.NewCountingClient(env.Client), rec: &fakecloud.Recorder{}, lbResult: step.Result{Done: true}, delDone: true}
	network := reconcile.ServiceFuncs[clusterScope]{
		ReconcileFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
			f.order = append(f.order, "reconcile Network")
			_, err := ensure.Exists(ctx, s, "vpc", f.cloud, ensure.Given(fakecloud.Spec{CIDR: s.InfraCluster().Spec.Region}))
			return step.Result{Done: err == nil}, err
		},
		DeleteFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
			f.order = append(f.order, "delete Network")
			return ensure.Deleted(ctx, s, "vpc", f.cloud)
		},
	}
	lb := reconcile.ServiceFuncs[clusterScope]{
		ReconcileFunc: func(_ context.Context, s clusterScope) (step.Result, error) {
			f.order = append(f.order, "reconcile LoadBalancer")
			if f.lbErr != nil || !f.lbResult.Done {
				return f.lbResult, f.lbErr
			}
			s.InfraCluster().SetControlPlaneEndpoint(contract.APIEndpoint{Host: "lb.example", Port: 6443})
			s.InfraCluster().SetProvisioned(true)
			return step.Result{Done: true}, nil
		},
		DeleteFunc: func(context.Context, clusterScope) (step.Result, error) {
			f.order = append(f.order, "delete LoadBalancer")
			return step.Result{Done: f.delDone}, nil
		},
	}
	r, err := reconcile.NewClusterReconcilerFor(f.cc, &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{{Name: "Network", Service: network}, {Name: "LoadBalancer", Service: lb}},
		reconcile.WithEventRecorder(f.rec), reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	require.NoError(t, err)
	f.r = r
	return f
}

// newFooCluster creates a Cluster and its FooCluster (owned by it unless orphan).
func newFooCluster(t *testing.T, ns string, orphan bool, mutate func(*testtypes.FooCluster)) (*testtypes.FooCluster, *unstructured.Unstructured) {
	t.Helper()
	cluster := createCluster(t, ns, "c1", nil)
	obj := &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1"}, Spec: testtypes.FooClusterSpec{Region: "10.0.0.0/16"}}
	if !orphan {
		obj.OwnerReferences = []metav1.OwnerReference{ownerRef(cluster)}
	}
	if mutate != nil {
		mutate(obj)
	}
	require.NoError(t, env.Client.Create(t.Context(), obj))
	return obj, cluster
}

func req(obj client.Object) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
}

func TestClusterReconcileProvisionsThenIsANoOp(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := context.Background()
	obj, _ := newFooCluster(t, ns, false, nil)
	f := newClusterFixture(t)
	f.cloud.BeforeCall = func(method string) error {
		live := &testtypes.FooCluster{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
			return err
		}
		if len(live.Finalizers) == 0 || live.Labels[scope.OwnershipKeyLabel] == "" {
			return fmt.Errorf("%s called before the finalizer and ownership key were persisted", method)
		}
		return nil
	}

	res, err := f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Zero(t, res.RequeueAfter)
	assert.Equal(t, []string{"reconcile Network", "reconcile LoadBalancer"}, f.order)
	assert.Equal(t, 1, f.cloud.Count())
	// finalizer+label, checkpoint after create, final spec (endpoint) and status.
	assert.Equal(t, 4, f.cc.Writes(), "%v", f.cc.Log())

	got := get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
	assert.Equal(t, []string{"infrastructure.capkit.io/foocluster"}, got.Finalizers)
	assert.Equal(t, "lb.example", got.Spec.ControlPlaneEndpoint.Host)
	assert.Equal(t, "net-1", got.Status.Resources["vpc"])
	setter := conditions.ForSlice(&got.Status.Conditions)
	for _, c := range []string{"NetworkReady", "LoadBalancerReady", conditions.Ready} {
		assert.True(t, conditions.IsTrue(setter, c), c)
	}
	assert.True(t, conditions.IsFalse(setter, conditions.Paused))
	assert.Empty(t, f.rec.All(), "a routine provision emits no event: conditions and status say it all")

	f.cc.Reset()
	f.order = nil
	f.cloud.Calls = nil
	_, err = f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Zero(t, f.cc.Writes(), "a no-op reconcile writes nothing: %v", f.cc.Log())
	assert.Equal(t, []string{"Get"}, f.cloud.Calls, "the tracked ID is only checked")
	assert.Equal(t, 1, f.cloud.Count())
}

func TestClusterReconcileWaitsAndSkips(t *testing.T) {
	tests := []struct {
		name       string
		orphan     bool
		mutate     func(*testtypes.FooCluster)
		wantPaused bool
		wantWrites int
	}{
		{name: "owner not set yet", orphan: true},
		{name: "externally managed", mutate: func(o *testtypes.FooCluster) {
			o.Annotations = map[string]string{contract.ManagedByAnnotation: "someone"}
		}},
		{name: "paused annotation", mutate: func(o *testtypes.FooCluster) {
			o.Annotations = map[string]string{contract.PausedAnnotation: ""}
		}, wantPaused: true, wantWrites: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.Namespace(t, "rec")
			obj, _ := newFooCluster(t, ns, tt.orphan, tt.mutate)
			f := newClusterFixture(t)
			res, err := f.r.Reconcile(t.Context(), req(obj))
			require.NoError(t, err)
			assert.Zero(t, res)
			assert.Empty(t, f.order, "no service runs")
			assert.Empty(t, f.cloud.Calls, "no cloud call")
			assert.Equal(t, tt.wantWrites, f.cc.Writes(), "%v", f.cc.Log())
			got := get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
			assert.Empty(t, got.Finalizers)
			assert.Equal(t, tt.wantPaused, conditions.IsTrue(conditions.ForSlice(&got.Status.Conditions), conditions.Paused))
		})
	}
}

func TestClusterReconcilePausedCluster(t *testing.T) {
	ns := env.Namespace(t, "rec")
	cluster := createCluster(t, ns, "c1", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, true, "spec", "paused")
	})
	obj := &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1", OwnerReferences: []metav1.OwnerReference{ownerRef(cluster)}}}
	require.NoError(t, env.Client.Create(t.Context(), obj))
	f := newClusterFixture(t)
	_, err := f.r.Reconcile(t.Context(), req(obj))
	require.NoError(t, err)
	assert.Empty(t, f.order)
	got := get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
	assert.True(t, conditions.IsTrue(conditions.ForSlice(&got.Status.Conditions), conditions.Paused))
	assert.Contains(t, f.rec.All(), "Normal Paused Pause reconciliation is paused")
}

func TestClusterReconcileNotFound(t *testing.T) {
	f := newClusterFixture(t)
	res, err := f.r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "nope", Name: "nope"}})
	require.NoError(t, err)
	assert.Zero(t, res)
	assert.Zero(t, f.cc.Writes())
}

// TestClusterReconcileErrorClasses: a step reports "not yet" with a Result, a terminal error with
// step.Terminal or controller-runtime's own step.TerminalError (wrapped or not), or any other error.
// Each is recorded in the step condition; only the last is returned to controller-runtime, which retries it
// with backoff.
func TestClusterReconcileErrorClasses(t *testing.T) {
	tests := []struct {
		name        string
		lbResult    step.Result
		lbErr       error
		wantRetried bool
		wantRequeue time.Duration
		wantReason  string
		wantMessage string
		wantEvent   string
	}{
		{name: "terminal", lbErr: step.Terminal("InvalidSize", errors.New("size \"huge\" does not exist")),
			wantReason: "InvalidSize", wantMessage: `size "huge" does not exist`, wantEvent: `Warning InvalidSize Reconcile LoadBalancerReady: size "huge" does not exist`},
		{name: "controller-runtime TerminalError", lbErr: crreconcile.TerminalError(errors.New("bad flavor")),
			wantReason: conditions.ReasonTerminalError, wantMessage: "terminal error: bad flavor", wantEvent: "Warning TerminalError Reconcile LoadBalancerReady: terminal error: bad flavor"},
		{name: "wrapped controller-runtime TerminalError", lbErr: fmt.Errorf("cannot create lb: %w", crreconcile.TerminalError(errors.New("bad flavor"))),
			wantReason: conditions.ReasonTerminalError, wantMessage: "cannot create lb: terminal error: bad flavor",
			wantEvent: "Warning TerminalError Reconcile LoadBalancerReady: cannot create lb: terminal error: bad flavor"},
		{name: "plain error is retried", lbErr: errors.New("throttled"), wantRetried: true, wantReason: conditions.ReasonTransientError, wantMessage: "throttled",
			wantEvent: "Warning TransientError Reconcile LoadBalancerReady: throttled"},
		{name: "not yet", lbResult: step.Result{}, wantRequeue: step.DefaultPollInterval, wantReason: conditions.ReasonInProgress},
		{name: "not done", lbResult: step.Result{Reason: "Provisioning", Message: "lb is starting"}, wantRequeue: step.DefaultPollInterval,
			wantReason: "Provisioning", wantMessage: "lb is starting"},
		{name: "not done with hint", lbResult: step.Result{RequeueAfter: time.Second}, wantRequeue: time.Second, wantReason: conditions.ReasonInProgress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.Namespace(t, "rec")
			obj, _ := newFooCluster(t, ns, false, nil)
			f := newClusterFixture(t)
			f.lbResult, f.lbErr = tt.lbResult, tt.lbErr
			res, err := f.r.Reconcile(t.Context(), req(obj))
			if tt.wantRetried {
				require.ErrorIs(t, err, tt.lbErr, "returned to controller-runtime, which retries it with backoff")
				assert.False(t, errors.Is(err, crreconcile.TerminalError(nil)), "controller-runtime must not take it for terminal")
			} else {
				require.NoError(t, err, "a terminal error is not returned, so controller-runtime does not retry it")
			}
			assert.Equal(t, ctrl.Result{RequeueAfter: tt.wantRequeue}, res, "an error waits for a change or the backoff, not a delay")
			got := get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
			c := conditions.Get(got, "LoadBalancerReady")
			require.NotNil(t, c)
			assert.Equal(t, metav1.ConditionFalse, c.Status)
			assert.Equal(t, tt.wantReason, c.Reason)
			assert.Equal(t, tt.wantMessage, c.Message)
			assert.True(t, conditions.IsTrue(got, "NetworkReady"), "the earlier step is recorded")
			assert.True(t, conditions.IsFalse(got, conditions.Ready))
			assert.Contains(t, conditions.GetMessage(got, conditions.Ready), tt.wantMessage, "Ready says why")
			assert.Equal(t, "net-1", got.Status.Resources["vpc"], "the checkpoint survived the failure")
			if tt.wantEvent != "" {
				assert.Contains(t, f.rec.All(), tt.wantEvent)
			}
		})
	}
}

// TestServiceOverTheNarrowInterfacePlugsIn: any reconcile.Service[scope.ClusterScoper[T]] is a step, here
// a generated mock; it sees the fetched object, its Cluster and an ownership key already persisted.
func TestServiceOverTheNarrowInterfacePlugsIn(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, cluster := newFooCluster(t, ns, false, nil)
	svc := mocks.NewMockService[clusterScope](gomock.NewController(t))
	svc.EXPECT().Reconcile(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, s clusterScope) (step.Result, error) {
		assert.Equal(t, obj.Name, s.InfraCluster().Name)
		assert.Equal(t, "10.0.0.0/16", s.InfraCluster().Spec.Region)
		assert.Equal(t, cluster.GetName(), s.Cluster().Name)
		assert.Equal(t, contract.V1Beta2, s.ContractVersion())
		key, err := s.OwnershipKey()
		require.NoError(t, err, "the key is persisted before any step runs")
		assert.Equal(t, key, get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta}).Labels[scope.OwnershipKeyLabel])
		s.InfraCluster().Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: "lb.example", Port: 6443}
		return step.Result{Done: true}, s.SetResourceID("lb", "lb-1")
	})
	r, err := reconcile.NewClusterReconcilerFor(env.Client, &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{{Name: "LoadBalancer", Service: svc}},
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	require.NoError(t, err)
	_, err = r.Reconcile(ctx, req(obj))
	require.NoError(t, err)

	got := get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
	assert.Equal(t, "lb.example", got.Spec.ControlPlaneEndpoint.Host, "a direct field write of the service is persisted")
	assert.Equal(t, map[string]string{"lb": "lb-1"}, got.Status.Resources)
	assert.True(t, conditions.IsTrue(got, "LoadBalancerReady"))
}

func TestClusterDeleteRunsStepsInReverseAndRemovesFinalizer(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, _ := newFooCluster(t, ns, false, nil)
	f := newClusterFixture(t)
	_, err := f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	require.Equal(t, 1, f.cloud.Count())

	require.NoError(t, env.Client.Delete(ctx, obj))
	f.order = nil
	f.delDone = false
	res, err := f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Equal(t, step.DefaultPollInterval, res.RequeueAfter)
	assert.Equal(t, []string{"delete LoadBalancer"}, f.order, "reverse order, stops at the first step not done")
	got := get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
	assert.NotEmpty(t, got.Finalizers, "the finalizer stays until every step is done")
	assert.True(t, conditions.IsTrue(conditions.ForSlice(&got.Status.Conditions), conditions.Deleting))

	f.order = nil
	f.delDone = true
	_, err = f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Equal(t, []string{"delete LoadBalancer", "delete Network"}, f.order)
	assert.Zero(t, f.cloud.Count(), "the network is deleted")
	err = env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &testtypes.FooCluster{})
	assert.True(t, apierrors.IsNotFound(err), "the object is gone: %v", err)
	assert.Contains(t, f.rec.All(), "Normal Deleted Delete cloud resources deleted")
}

func TestGenerationGatedStepSkipsWhenObserved(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, _ := newFooCluster(t, ns, false, nil)
	calls := 0
	step := reconcile.Step[clusterScope]{Name: "Config", GenerationGated: true, Service: reconcile.ServiceFuncs[clusterScope]{
		ReconcileFunc: func(context.Context, clusterScope) (step.Result, error) {
			calls++
			return step.Result{Done: true}, nil
		}}}
	r, err := reconcile.NewClusterReconcilerFor(env.Client, &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{step}, reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	require.NoError(t, err)
	for range 2 {
		_, err = r.Reconcile(ctx, req(obj))
		require.NoError(t, err)
	}
	assert.Equal(t, 1, calls, "skipped while ConfigReady is True for this generation")

	got := get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
	got.Spec.Region = "10.1.0.0/16"
	require.NoError(t, env.Client.Update(ctx, got))
	_, err = r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Equal(t, 2, calls, "a new generation runs the step again")
}

func TestNewReconcilerRejectsBadInput(t *testing.T) {
	obj := &testtypes.FooCluster{}
	var nilObj *testtypes.FooCluster
	ok := reconcile.Step[clusterScope]{Name: "A", Service: reconcile.ServiceFuncs[clusterScope]{}}
	tests := []struct {
		name    string
		c       client.Client
		obj     *testtypes.FooCluster
		steps   []reconcile.Step[clusterScope]
		opts    []reconcile.Option
		wantMsg string
	}{
		{name: "nil client", obj: obj, steps: []reconcile.Step[clusterScope]{ok}, wantMsg: "client is nil"},
		{name: "nil object", c: env.Client, obj: nilObj, steps: []reconcile.Step[clusterScope]{ok}, wantMsg: "object is a nil *testtypes.FooCluster"},
		{name: "no steps", c: env.Client, obj: obj, wantMsg: "steps must not be empty"},
		{name: "unnamed step", c: env.Client, obj: obj, steps: []reconcile.Step[clusterScope]{{Service: ok.Service}}, wantMsg: "step 0: name must not be empty"},
		{name: "nil service", c: env.Client, obj: obj, steps: []reconcile.Step[clusterScope]{{Name: "A"}}, wantMsg: `step "A": service must not be nil`},
		{name: "duplicate", c: env.Client, obj: obj, steps: []reconcile.Step[clusterScope]{ok, ok}, wantMsg: `duplicate condition type "AReady"`},
		{name: "bad core version", c: env.Client, obj: obj, steps: []reconcile.Step[clusterScope]{ok}, opts: []reconcile.Option{reconcile.WithCoreVersion("v9")}, wantMsg: `"v9"`},
		{name: "bad requeue", c: env.Client, obj: obj, steps: []reconcile.Step[clusterScope]{ok}, opts: []reconcile.Option{reconcile.WithPollInterval(-1)}, wantMsg: "must be positive"},
		{name: "unknown type", c: envClientWithoutFoo(t), obj: obj, steps: []reconcile.Step[clusterScope]{ok}, wantMsg: "cannot find the kind"},
		{name: "identity without infraCluster", c: env.Client, obj: obj, steps: []reconcile.Step[clusterScope]{ok},
			opts: []reconcile.Option{reconcile.WithIdentityFor(nil, nil)}, wantMsg: "WithIdentityFor: infraCluster is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := reconcile.NewClusterReconcilerFor(tt.c, tt.obj, tt.steps, tt.opts...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
	r, err := reconcile.NewClusterReconcilerFor(env.Client, obj, []reconcile.Step[clusterScope]{ok}, reconcile.WithFinalizer("x.example.com/cleanup"))
	require.NoError(t, err)
	assert.Equal(t, "x.example.com/cleanup", r.Finalizer())
}

// TestDeprecatedNewClusterReconcilerTakesAFactory: the v0.1.0 form still builds a working reconciler, and still
// refuses a nil factory.
func TestDeprecatedNewClusterReconcilerTakesAFactory(t *testing.T) {
	ok := reconcile.Step[clusterScope]{Name: "A", Service: reconcile.ServiceFuncs[clusterScope]{}}
	_, err := reconcile.NewClusterReconciler[*testtypes.FooCluster](env.Client, nil, []reconcile.Step[clusterScope]{ok})
	require.ErrorContains(t, err, "newObject is nil")
	_, err = reconcile.NewClusterReconciler(env.Client, func() *testtypes.FooCluster { return nil }, []reconcile.Step[clusterScope]{ok})
	require.ErrorContains(t, err, "object is a nil *testtypes.FooCluster")
	r, err := reconcile.NewClusterReconciler(env.Client, func() *testtypes.FooCluster { return &testtypes.FooCluster{} }, []reconcile.Step[clusterScope]{ok})
	require.NoError(t, err)
	assert.Equal(t, "infrastructure.capkit.io/foocluster", r.Finalizer())
}

// TestPrototypeValuesDoNotLeakIntoReconciledObjects: the object given to NewClusterReconcilerFor is a prototype
// of its type only: a label, a finalizer or a spec field set on it never reaches an object the reconciler reads,
// and the prototype is never written to.
func TestPrototypeValuesDoNotLeakIntoReconciledObjects(t *testing.T) {
	ns := env.Namespace(t, "proto")
	obj, _ := newFooCluster(t, ns, false, func(c *testtypes.FooCluster) { c.Spec.Region = "" })
	proto := &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Name: "leak", Labels: map[string]string{"leak": "yes"},
		Finalizers: []string{"leak.example.com/f"}}, Spec: testtypes.FooClusterSpec{Region: "leak"}}
	protoBefore := proto.DeepCopyObject()
	var seen *testtypes.FooCluster
	step := reconcile.Step[clusterScope]{Name: "A", Service: reconcile.ServiceFuncs[clusterScope]{
		ReconcileFunc: func(_ context.Context, s clusterScope) (step.Result, error) {
			seen = s.InfraCluster().DeepCopyObject().(*testtypes.FooCluster)
			return step.Result{Done: true}, nil
		},
	}}
	r, err := reconcile.NewClusterReconcilerFor(env.Client, proto, []reconcile.Step[clusterScope]{step})
	require.NoError(t, err)
	_, err = r.Reconcile(t.Context(), req(obj))
	require.NoError(t, err)
	require.NotNil(t, seen, "the step ran")
	assert.Empty(t, seen.Spec.Region)
	assert.NotContains(t, seen.Labels, "leak")
	assert.NotContains(t, seen.Finalizers, "leak.example.com/f")
	got := get(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
	assert.NotContains(t, got.Labels, "leak")
	assert.NotContains(t, got.Finalizers, "leak.example.com/f")
	assert.Equal(t, protoBefore, proto, "the prototype is never written to")
}

func envClientWithoutFoo(t *testing.T) client.Client {
	c, err := client.New(env.Config, client.Options{})
	require.NoError(t, err)
	return c
}

// TestClusterDeletedByClusterctlMoveKeepsCloudResources: clusterctl move deletes the source copy of each object
// (annotated delete-for-move) after creating it on the target; even when the Cluster is already gone, the
// reconciler must not delete the cloud resources the target's copy now uses.
func TestClusterDeletedByClusterctlMoveKeepsCloudResources(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, cluster := newFooCluster(t, ns, false, nil)
	f := newClusterFixture(t)
	_, err := f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	require.Equal(t, 1, f.cloud.Count())

	obj = get(t, obj)
	obj.Annotations = map[string]string{contract.DeleteForMoveAnnotation: ""}
	require.NoError(t, env.Client.Update(ctx, obj))
	require.NoError(t, env.Client.Delete(ctx, obj))
	require.NoError(t, env.Client.Delete(ctx, cluster), "the Cluster goes too: without the annotation the reconciler would delete with a placeholder")
	f.order = nil
	res, err := f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Zero(t, res.RequeueAfter)
	assert.Empty(t, f.order, "no delete step")
	assert.Equal(t, 1, f.cloud.Count(), "the network lives on for the moved copy")
	assert.NotEmpty(t, get(t, obj).Finalizers, "clusterctl removes the finalizer itself")
}
