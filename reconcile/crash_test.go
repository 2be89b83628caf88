package reconcile_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// errCrash is what a step panics with to stand for the controller dying at that point.
var errCrash = errors.New("the controller process dies here")

// crashingCreate is the fake cloud in which the controller dies once Create has created the network, before
// Ensure records its ID.
type crashingCreate struct{ *fakecloud.Cloud }

func (c crashingCreate) Create(ctx context.Context, spec fakecloud.Spec, token string, tags map[string]string) (*fakecloud.Net, error) {
	_, _ = c.Cloud.Create(ctx, spec, token, tags)
	panic(errCrash)
}

// crashes reconciles obj with r and reports whether the controller "died" (panicked with errCrash).
func crashes(r *reconcile.ClusterReconciler[*testtypes.FooCluster], obj *testtypes.FooCluster) (crashed bool) {
	defer func() {
		err, _ := recover().(error)
		crashed = errors.Is(err, errCrash)
	}()
	_, _ = r.Reconcile(context.Background(), req(obj))
	return false
}

// TestDeleteAfterCrashWaitsForTheIdentity: a controller that dies after a cloud create and before the status
// patch at the end of the reconcile, followed by a delete while the identity is refused, must not take the
// object for one that never ran: the finalizer stays, no cloud call is made without credentials, and the
// delete steps run (and delete what was created) once the identity allows it again.
func TestDeleteAfterCrashWaitsForTheIdentity(t *testing.T) {
	tests := []struct {
		name string
		// beforeCheckpoint: the controller dies inside Create, before Ensure's ID checkpoint; otherwise right
		// after Ensure returned (the ID is persisted, the step condition is not).
		beforeCheckpoint bool
		// olderCapkit strips what this version writes before the first step (the annotation) and the
		// IdentityReady condition, as an object reconciled by a capkit without them: the recorded resource
		// ID must be enough.
		olderCapkit bool
	}{
		{name: "crash after the ID checkpoint"},
		{name: "crash between create and checkpoint", beforeCheckpoint: true},
		{name: "crash after the checkpoint, object of an older capkit", olderCapkit: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.Namespace(t, "rec")
			ctx := t.Context()
			idName := ns + "-identity"
			b, _ := newTestBinder(t, ns, idName)
			cloud := fakecloud.New()
			var res ensure.Resource[fakecloud.Spec, *fakecloud.Net] = cloud
			if tt.beforeCheckpoint {
				res = crashingCreate{cloud}
			}
			network := reconcile.ServiceFuncs[clusterScope]{
				ReconcileFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
					if _, err := ensure.Exists(ctx, s, "vpc", res, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"})); err != nil {
						return step.Result{}, err
					}
					panic(errCrash)
				},
				DeleteFunc: func(ctx context.Context, s clusterScope) (step.Result, error) {
					return ensure.Deleted(ctx, s, "vpc", cloud)
				},
			}
			r, err := reconcile.NewClusterReconcilerFor(env.Client, &testtypes.FooCluster{},
				[]reconcile.Step[clusterScope]{{Name: "Network", Service: network}}, reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)),
				reconcile.WithIdentityFor(b, &testtypes.FooCluster{}))
			require.NoError(t, err)
			obj, _ := newFooCluster(t, ns, false, func(c *testtypes.FooCluster) {
				c.Spec.IdentityRef = &identity.Ref{Kind: "FooClusterIdentity", Name: idName}
			})
			setAllowed(t, idName, ns)

			require.True(t, crashes(r, obj), "the controller dies in the first reconcile")
			require.Equal(t, 1, cloud.Count(), "the network was created")
			obj = get(t, obj)
			assert.Nil(t, meta.FindStatusCondition(obj.Status.Conditions, "NetworkReady"), "no step condition survived the crash")
			if tt.olderCapkit {
				delete(obj.Annotations, reconcile.StepsStartedAnnotation)
				require.NoError(t, env.Client.Update(ctx, obj))
				meta.RemoveStatusCondition(&obj.Status.Conditions, reconcile.ConditionIdentityReady)
				require.NoError(t, env.Client.Status().Update(ctx, obj))
				obj = get(t, obj)
				require.NotEmpty(t, obj.Status.Resources, "the ID checkpoint is all that is left")
			}

			// Refused at delete time: nothing is called, the finalizer stays.
			setAllowed(t, idName)
			require.NoError(t, env.Client.Delete(ctx, obj))
			cloud.Calls = nil
			_, err = r.Reconcile(ctx, req(obj))
			require.NoError(t, err)
			obj = get(t, obj)
			assert.True(t, controllerutil.ContainsFinalizer(obj, r.Finalizer()), "the object waits for its identity")
			assert.Empty(t, cloud.Calls, "no cloud call without an allowed identity")
			assert.Equal(t, 1, cloud.Count())
			assert.True(t, conditions.IsFalse(obj, reconcile.ConditionIdentityReady))

			// Allowed again: the delete steps delete the network, then the finalizer goes.
			setAllowed(t, idName, ns)
			_, err = r.Reconcile(ctx, req(obj))
			require.NoError(t, err)
			assert.Zero(t, cloud.Count(), "the network created before the crash is deleted")
			assertGone(t, &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: obj.Name}})
		})
	}
}
