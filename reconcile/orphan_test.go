package reconcile_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// deleteAndReconcile deletes obj (which keeps its finalizer) and reconciles it once.
func deleteAndReconcile(t *testing.T, r interface {
	Reconcile(context.Context, ctrl.Request) (ctrl.Result, error)
}, obj client.Object) {
	t.Helper()
	ctx := t.Context()
	require.NoError(t, env.Client.Delete(ctx, obj))
	_, err := r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
}

func assertGone(t *testing.T, obj client.Object) {
	t.Helper()
	err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj)
	assert.True(t, apierrors.IsNotFound(err), "the finalizer was removed and the object is gone: %v (finalizers %q)", err, obj.GetFinalizers())
}

func TestClusterDeletedBeforeItsInfraClusterLeaksNothing(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, cluster := newFooCluster(t, ns, false, nil)
	f := newClusterFixture(t)
	_, err := f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	require.Equal(t, 1, f.cloud.Count(), "provisioned")

	// envtest runs no garbage collector: deleting the Cluster leaves the FooCluster, as a user's
	// out-of-order delete or a foreground deletion that removed the Cluster first would.
	require.NoError(t, env.Client.Delete(ctx, cluster))
	f.order = nil
	deleteAndReconcile(t, f.r, obj)
	assert.Equal(t, []string{"delete LoadBalancer", "delete Network"}, f.order, "the delete steps ran without the Cluster")
	assert.Zero(t, f.cloud.Count(), "the cloud resources were deleted")
	assertGone(t, &testtypes.FooCluster{ObjectMeta: obj.ObjectMeta})
}

func TestOrphanedInfraClusterNotBeingDeletedStillWaits(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	obj, cluster := newFooCluster(t, ns, false, nil)
	f := newClusterFixture(t)
	_, err := f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	require.NoError(t, env.Client.Delete(ctx, cluster))

	f.order = nil
	f.cc.Reset()
	_, err = f.r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Empty(t, f.order, "no step runs while the owner is missing and no delete was asked")
	assert.Zero(t, f.cc.Writes())
	assert.Equal(t, 1, f.cloud.Count())
}

// newDeletingMachineFixture returns a FooMachine reconciler whose VM step creates and deletes one resource.
func newDeletingMachineFixture(t *testing.T) (*reconcile.MachineReconciler[*testtypes.FooMachine], *fakecloud.Cloud, *[]*unstructured.Unstructured) {
	t.Helper()
	cloud := fakecloud.New()
	var seen []*unstructured.Unstructured
	vm := reconcile.ServiceFuncs[machineScope]{
		ReconcileFunc: func(ctx context.Context, s machineScope) (step.Result, error) {
			_, err := ensure.Exists(ctx, s, "vm", cloud, ensure.Given(fakecloud.Spec{CIDR: "x"}))
			if err != nil {
				return step.Result{}, err
			}
			s.InfraMachine().SetProvisioned(true)
			return step.Result{Done: true}, nil
		},
		DeleteFunc: func(ctx context.Context, s machineScope) (step.Result, error) {
			seen = append(seen, s.Machine().Object, s.Cluster().Object)
			return ensure.Deleted(ctx, s, "vm", cloud)
		},
	}
	r, err := reconcile.NewMachineReconcilerFor(env.Client, &testtypes.FooMachine{},
		[]reconcile.Step[machineScope]{{Name: "VM", Service: vm}}, reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)))
	require.NoError(t, err)
	return r, cloud, &seen
}

func TestOwnersDeletedBeforeTheirInfraMachineLeakNothing(t *testing.T) {
	for _, tt := range []struct {
		name          string
		deleteMachine bool
	}{
		{name: "Machine and Cluster gone", deleteMachine: true},
		{name: "Cluster gone"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.Namespace(t, "rec")
			ctx := t.Context()
			createBootstrapSecret(t, ns, "m1-data")
			obj := newFooMachine(t, ns, true, "m1-data")
			r, cloud, seen := newDeletingMachineFixture(t)
			_, err := r.Reconcile(ctx, req(obj))
			require.NoError(t, err)
			require.Equal(t, 1, cloud.Count(), "provisioned")

			for _, kind := range []string{"Machine", "Cluster"} {
				if kind == "Machine" && !tt.deleteMachine {
					continue
				}
				u := &unstructured.Unstructured{}
				u.SetAPIVersion("cluster.x-k8s.io/v1beta2")
				u.SetKind(kind)
				u.SetNamespace(ns)
				u.SetName(map[string]string{"Machine": "m1", "Cluster": "c1"}[kind])
				require.NoError(t, env.Client.Delete(ctx, u))
			}
			deleteAndReconcile(t, r, obj)
			assert.Zero(t, cloud.Count(), "the cloud resources were deleted")
			assertGone(t, &testtypes.FooMachine{ObjectMeta: obj.ObjectMeta})
			require.Len(t, *seen, 2, "Delete ran once")
			machine, cluster := (*seen)[0], (*seen)[1]
			assert.Equal(t, "m1", machine.GetName())
			assert.Equal(t, "c1", cluster.GetName(), "the Cluster is named by the Machine's cluster name")
			_, placeholder := machine.GetAnnotations()[reconcile.PlaceholderAnnotation]
			assert.Equal(t, tt.deleteMachine, placeholder, "a placeholder stands in for a deleted Machine only")
			assert.Contains(t, cluster.GetAnnotations(), reconcile.PlaceholderAnnotation)
		})
	}
}
