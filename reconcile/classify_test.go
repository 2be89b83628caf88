package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// stepCall is one call of a step's service: what it returns and what the reconcilers must do with it.
type stepCall struct {
	name string
	res  step.Result
	err  error
	// want is the classification of a Reconcile call; wantDelete, when its Class is set, of a Delete call
	// (else want).
	want, wantDelete reconcile.Classification
}

// stepCalls returns every class of outcome a service can produce, each error also wrapped with %w.
func stepCalls() []stepCall {
	retried := errors.New("connection reset")
	calls := []stepCall{
		{name: "done", res: step.Result{Done: true},
			want:       reconcile.Classification{Class: reconcile.ClassDone, Reason: conditions.ReasonReady},
			wantDelete: reconcile.Classification{Class: reconcile.ClassDone, Reason: conditions.ReasonDeleting}},
		{name: "done with a periodic re-check", res: step.Result{Done: true, RequeueAfter: 5 * time.Minute},
			want:       reconcile.Classification{Class: reconcile.ClassDone, Reason: conditions.ReasonReady, RequeueAfter: 5 * time.Minute},
			wantDelete: reconcile.Classification{Class: reconcile.ClassDone, Reason: conditions.ReasonDeleting}},
		{name: "not done", res: step.Result{},
			want:       reconcile.Classification{Class: reconcile.ClassInProgress, Reason: conditions.ReasonInProgress, RequeueAfter: step.DefaultPollInterval},
			wantDelete: reconcile.Classification{Class: reconcile.ClassInProgress, Reason: conditions.ReasonDeleting, RequeueAfter: step.DefaultPollInterval}},
		{name: "not done with a reason", res: step.Result{Reason: "InstanceBooting", Message: "booting", RequeueAfter: 3 * time.Second},
			want:       reconcile.Classification{Class: reconcile.ClassInProgress, Reason: "InstanceBooting", RequeueAfter: 3 * time.Second},
			wantDelete: reconcile.Classification{Class: reconcile.ClassInProgress, Reason: conditions.ReasonDeleting, RequeueAfter: 3 * time.Second}},
	}
	errs := []stepCall{
		{name: "terminal with a reason", err: step.Terminal("QuotaExceeded", errors.New("quota of 10 instances reached")),
			want: reconcile.Classification{Class: reconcile.ClassTerminal, Reason: "QuotaExceeded"}},
		{name: "controller-runtime terminal", err: crreconcile.TerminalError(errors.New("bad flavor")),
			want: reconcile.Classification{Class: reconcile.ClassTerminal, Reason: conditions.ReasonTerminalError}},
		{name: "throttled with a hint", err: step.Throttled(errors.New("429 Too Many Requests"), 2*time.Second),
			want: reconcile.Classification{Class: reconcile.ClassThrottled, Reason: conditions.ReasonThrottled, RequeueAfter: 2 * time.Second}},
		{name: "throttled without a hint", err: step.Throttled(errors.New("429 Too Many Requests"), 0),
			want: reconcile.Classification{Class: reconcile.ClassThrottled, Reason: conditions.ReasonThrottled, RequeueAfter: reconcile.ThrottleBackoffBase}},
		{name: "identity refused", err: &identity.RefusedError{Reason: conditions.ReasonNamespaceNotAllowed, Message: "identity \"team-a\" does not allow namespace \"ns\""},
			want: reconcile.Classification{Class: reconcile.ClassRefused, Reason: conditions.ReasonNamespaceNotAllowed, RequeueAfter: reconcile.DefaultIdentityRecheck}},
		{name: "plain error", err: retried,
			want: reconcile.Classification{Class: reconcile.ClassTransient, Reason: conditions.ReasonTransientError, Err: retried}},
		{name: "plain error with a done result", res: step.Result{Done: true}, err: retried,
			want: reconcile.Classification{Class: reconcile.ClassTransient, Reason: conditions.ReasonTransientError, Err: retried}},
	}
	for _, c := range errs {
		wrapped := c
		wrapped.name = c.name + ", wrapped"
		wrapped.err = fmt.Errorf("cannot call the cloud: %w", c.err)
		if wrapped.want.Err != nil {
			wrapped.want.Err = wrapped.err
		}
		calls = append(calls, c, wrapped)
	}
	return calls
}

// expected returns the classification of call for op.
func (c stepCall) expected(op reconcile.Op) reconcile.Classification {
	if op == reconcile.OpDelete && c.wantDelete.Class != 0 {
		return c.wantDelete
	}
	return c.want
}

// TestHarnessAndReconcilerClassifyAlike runs the same service calls through Classify, through the
// servicetest harness and through a real cluster reconciler against the API server, for Reconcile and for
// Delete, and checks that the three agree with the table: class, condition reason, requeue, error returned.
func TestHarnessAndReconcilerClassifyAlike(t *testing.T) {
	for _, op := range []reconcile.Op{reconcile.OpReconcile, reconcile.OpDelete} {
		name := map[reconcile.Op]string{reconcile.OpReconcile: "reconcile", reconcile.OpDelete: "delete"}[op]
		t.Run(name, func(t *testing.T) {
			for _, call := range stepCalls() {
				want := call.expected(op)
				t.Run(call.name, func(t *testing.T) {
					t.Run("Classify", func(t *testing.T) {
						assert.Equal(t, want, reconcile.Classify(op, call.res, call.err))
					})
					t.Run("harness", func(t *testing.T) { harnessAgrees(t, op, call, want) })
					t.Run("reconciler", func(t *testing.T) { reconcilerAgrees(t, op, call, want) })
				})
			}
		})
	}
}

// callService is a step's service whose Reconcile (or Delete, with op OpDelete) returns call.
func callService(op reconcile.Op, call stepCall) reconcile.Service[clusterScope] {
	do := func(context.Context, clusterScope) (step.Result, error) { return call.res, call.err }
	if op == reconcile.OpDelete {
		return reconcile.ServiceFuncs[clusterScope]{DeleteFunc: do}
	}
	return reconcile.ServiceFuncs[clusterScope]{ReconcileFunc: do}
}

// harnessAgrees runs call through servicetest with want as the expected outcome.
func harnessAgrees(t *testing.T, op reconcile.Op, call stepCall, want reconcile.Classification) {
	outcome := servicetest.Outcome{Result: call.res, Class: want.Class, Reason: want.Reason, RequeueAfter: want.RequeueAfter, ErrorIs: call.err}
	newService := func(*testing.T) (reconcile.Service[clusterScope], struct{}) { return callService(op, call), struct{}{} }
	servicetest.RunClusterCases(t, newService, servicetest.ClusterCase[*testtypes.FooCluster, struct{}]{
		Name: "call",
		Scope: &scopetest.FakeClusterScope[*testtypes.FooCluster]{FakeObject: scopetest.FakeObject[*testtypes.FooCluster]{
			Object:            &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1", Generation: 1}},
			OwnershipKeyValue: "cluster-key", ClusterInfo: scope.ClusterInfo{Name: "c1", InfrastructureProvisioned: true},
		}},
		Delete: op == reconcile.OpDelete,
		Want:   outcome,
	})
}

// reconcilerAgrees runs call as the one step of a cluster reconciler and checks what it did against want.
func reconcilerAgrees(t *testing.T, op reconcile.Op, call stepCall, want reconcile.Classification) {
	ctx := t.Context()
	ns := env.Namespace(t, "rec")
	obj, _ := newFooCluster(t, ns, false, nil)
	rec := &fakecloud.Recorder{}
	r, err := reconcile.NewClusterReconcilerFor(env.Client, &testtypes.FooCluster{},
		[]reconcile.Step[clusterScope]{{Name: "LoadBalancer", Service: callService(op, call)}},
		reconcile.WithEventRecorder(rec), reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	require.NoError(t, err)
	cond := "LoadBalancerReady"
	if op == reconcile.OpDelete {
		_, err := r.Reconcile(ctx, req(obj))
		require.NoError(t, err, "the first reconcile adds the finalizer")
		require.NoError(t, env.Client.Delete(ctx, obj))
		cond = conditions.Deleting
	}

	res, err := r.Reconcile(ctx, req(obj))

	if want.Err != nil {
		require.ErrorIs(t, err, call.err, "returned to controller-runtime, which retries it with backoff")
		assert.False(t, errors.Is(err, crreconcile.TerminalError(nil)), "controller-runtime must not take it for terminal")
	} else {
		require.NoError(t, err, "only a transient error goes to controller-runtime")
	}
	if want.Class == reconcile.ClassThrottled {
		assert.GreaterOrEqual(t, res.RequeueAfter, want.RequeueAfter, "throttled: at least the cloud's hint")
		assert.LessOrEqual(t, res.RequeueAfter, want.RequeueAfter+want.RequeueAfter/2, "throttled: at most 50% jitter on a first throttled reconcile")
	} else {
		assert.Equal(t, ctrl.Result{RequeueAfter: want.RequeueAfter}, res)
	}

	got := &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta}
	err = env.Client.Get(ctx, req(obj).NamespacedName, got)
	if op == reconcile.OpDelete && want.Class == reconcile.ClassDone {
		assert.True(t, apierrors.IsNotFound(err), "every step deleted: the finalizer is removed and the object is gone (%v)", err)
		return
	}
	require.NoError(t, err)
	c := conditions.Get(got, cond)
	require.NotNil(t, c, "condition %s", cond)
	assert.Equal(t, want.Reason, c.Reason, "reason of %s", cond)
	wantStatus := metav1.ConditionFalse
	if op == reconcile.OpDelete || want.Class == reconcile.ClassDone {
		wantStatus = metav1.ConditionTrue // Deleting has negative polarity
	}
	assert.Equal(t, wantStatus, c.Status, "status of %s", cond)
	if op == reconcile.OpReconcile {
		warned := false
		for _, e := range rec.Reasons() {
			warned = warned || e == "Warning "+want.Reason
		}
		failed := want.Class == reconcile.ClassTerminal || want.Class == reconcile.ClassRefused || want.Class == reconcile.ClassTransient
		assert.Equal(t, failed, warned, "a Warning event for a failure, none for %s: %s", want.Class, strings.Join(rec.All(), "; "))
	}
}

// TestClassString names every class.
func TestClassString(t *testing.T) {
	tests := []struct {
		class reconcile.Class
		want  string
	}{
		{reconcile.ClassDone, "Done"},
		{reconcile.ClassInProgress, "InProgress"},
		{reconcile.ClassThrottled, "Throttled"},
		{reconcile.ClassTerminal, "Terminal"},
		{reconcile.ClassRefused, "Refused"},
		{reconcile.ClassTransient, "Transient"},
		{0, "Class(0)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.class.String())
	}
}
