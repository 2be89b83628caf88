package reconcile

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/prototype"
	"github.com/capkit/capkit/scope"
)

// MachinePoolReconciler reconciles a provider's InfraMachinePool of type T through ordered steps, with the
// guarantees of MachineReconciler: the finalizer is persisted before the first step, pause and the
// externally-managed annotation are honoured, steps run in order and are deleted in reverse. The owner
// MachinePool is found by owner reference (Cluster API sets it) and the Cluster by the MachinePool's
// spec.clusterName. Before the first step it waits, without error and without cloud calls, until the
// Cluster's infrastructure is provisioned and the MachinePool's bootstrap data secret is set. Unlike a
// machine, a pool keeps changing after it is provisioned (its size follows spec.replicas), so the gate
// holds only until the first provisioning and the steps run on every reconcile after it.
//
// MachinePool Machines (status.infrastructureMachineKind) are not driven by this reconciler: a provider that
// wants them creates one InfraMachine per instance in its own step, labelled cluster.x-k8s.io/pool-name.
type MachinePoolReconciler[T client.Object] struct {
	*base
	newObject func() T
	newScope  func(context.Context, client.Client, T, *unstructured.Unstructured, *unstructured.Unstructured, ...scope.Option) (*scope.MachinePoolScope[T], error)
	steps     []Step[scope.MachinePoolScoper[T]]
}

// NewMachinePoolReconcilerFor returns a reconciler for InfraMachinePools of object's type T, which satisfies
// contract.InfraMachinePoolObject (a type that lacks one of its methods does not compile), as controller-runtime's
// builder.For(object) does: object is a prototype, e.g. &v1beta2.MemMachinePool{}, whose type alone is used (each
// reconcile reads into a new, empty T). steps are the provider's services in order.
func NewMachinePoolReconcilerFor[T contract.InfraMachinePoolObject](c client.Client, object T, steps []Step[scope.MachinePoolScoper[T]], opts ...Option) (*MachinePoolReconciler[T], error) {
	newObject, err := prototype.Factory("object", object)
	if err != nil {
		return nil, fmt.Errorf("cannot create InfraMachinePool reconciler: %w", err)
	}
	return newMachinePoolReconciler(c, newObject, scope.NewMachinePoolScope[T], steps, opts)
}

// NewMachinePoolReconciler returns a reconciler for InfraMachinePools of type T; newObject returns an empty T.
//
// Deprecated: use NewMachinePoolReconcilerFor with an empty object, e.g. NewMachinePoolReconcilerFor(c,
// &v1beta2.MemMachinePool{}, steps, opts...).
func NewMachinePoolReconciler[T contract.InfraMachinePoolObject](c client.Client, newObject func() T, steps []Step[scope.MachinePoolScoper[T]], opts ...Option) (*MachinePoolReconciler[T], error) {
	if newObject == nil {
		return nil, errors.New("cannot create InfraMachinePool reconciler: newObject is nil")
	}
	return NewMachinePoolReconcilerFor(c, newObject(), steps, opts...)
}

func newMachinePoolReconciler[T client.Object](c client.Client, newObject func() T, newScope func(context.Context, client.Client, T, *unstructured.Unstructured, *unstructured.Unstructured, ...scope.Option) (*scope.MachinePoolScope[T], error), steps []Step[scope.MachinePoolScoper[T]], opts []Option) (*MachinePoolReconciler[T], error) {
	b, err := newStepsBase(c, newObject, steps, "InfraMachinePool", opts)
	if err != nil {
		return nil, err
	}
	return &MachinePoolReconciler[T]{base: b, newObject: newObject, newScope: newScope, steps: steps}, nil
}

// Reconcile implements controller-runtime's reconcile.Reconciler.
func (r *MachinePoolReconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.redacted(ctx, req, r.reconcile)
}

func (r *MachinePoolReconciler[T]) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj, found, err := fetch(ctx, r.base, r.newObject, req)
	if err != nil || !found {
		return ctrl.Result{}, err
	}
	o, ok, err := r.resolveOwners(ctx, obj, "MachinePool")
	if err != nil || !ok {
		return ctrl.Result{}, err
	}
	ctx = withOwners(ctx, "MachinePool", o)
	s, err := r.newScope(ctx, r.client, obj, o.owner, o.cluster, r.scopeOptions(ctx)...)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.rememberVersion(s.ContractVersion())
	gate := provisioningGate(s.Provisioned, s.Cluster(), s.MachinePool().BootstrapDataSecretName)
	return r.run(ctx, s, bindSteps(r.steps, scope.MachinePoolScoper[T](s)), gate, r.infraClusterIdentity(s.Cluster()))
}

// SetupWithManager registers the reconciler with mgr: it watches the InfraMachinePool kind (matching the
// watch filter), core MachinePools mapped to the InfraMachinePool they reference, and core Clusters mapped
// to their InfraMachinePools. Bootstrap data is read through mgr.GetAPIReader(), as for machines.
func (r *MachinePoolReconciler[T]) SetupWithManager(mgr ctrl.Manager) error {
	return r.setupOwned(mgr, r, r.newObject(), "MachinePool", MachinePoolToInfraMachinePool(r.kind.GroupKind()))
}
