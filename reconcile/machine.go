package reconcile

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/prototype"
	"github.com/capkit/capkit/scope"
)

// MachineReconciler reconciles a provider's InfraMachine of type T through ordered steps, like
// ClusterReconciler, with the owner Machine found by owner reference and the Cluster by the Machine's
// cluster.x-k8s.io/cluster-name label. Before the first step it waits, without error and without cloud
// calls, until the Cluster's infrastructure is provisioned and the Machine's bootstrap data secret is set
// (not once the InfraMachine is provisioned); the first step's condition says what it waits for. When the
// Machine or the Cluster was deleted before the InfraMachine, deletion runs with placeholders
// (PlaceholderAnnotation) instead of waiting for owners that will never come.
type MachineReconciler[T client.Object] struct {
	*base
	newObject func() T
	newScope  func(context.Context, client.Client, T, *unstructured.Unstructured, *unstructured.Unstructured, ...scope.Option) (*scope.MachineScope[T], error)
	steps     []Step[scope.MachineScoper[T]]
}

// NewMachineReconcilerFor returns a reconciler for InfraMachines of object's type T, which satisfies
// contract.InfraMachineObject (a type that lacks one of its methods does not compile), as controller-runtime's
// builder.For(object) does: object is a prototype, e.g. &v1beta2.MemMachine{}, whose type alone is used (each
// reconcile reads into a new, empty T). steps are the provider's services in order.
func NewMachineReconcilerFor[T contract.InfraMachineObject](c client.Client, object T, steps []Step[scope.MachineScoper[T]], opts ...Option) (*MachineReconciler[T], error) {
	newObject, err := prototype.Factory("object", object)
	if err != nil {
		return nil, fmt.Errorf("cannot create InfraMachine reconciler: %w", err)
	}
	return newMachineReconciler(c, newObject, scope.NewMachineScope[T], steps, opts)
}

// NewMachineReconciler returns a reconciler for InfraMachines of type T; newObject returns an empty T.
//
// Deprecated: use NewMachineReconcilerFor with an empty object, e.g. NewMachineReconcilerFor(c,
// &v1beta2.MemMachine{}, steps, opts...).
func NewMachineReconciler[T contract.InfraMachineObject](c client.Client, newObject func() T, steps []Step[scope.MachineScoper[T]], opts ...Option) (*MachineReconciler[T], error) {
	if newObject == nil {
		return nil, errors.New("cannot create InfraMachine reconciler: newObject is nil")
	}
	return NewMachineReconcilerFor(c, newObject(), steps, opts...)
}

// NewUnstructuredMachineReconciler returns a reconciler for InfraMachines of kind gvk held as unstructured
// objects, read and written at the paths of their contract version (scope.NewUnstructuredMachineScope): for a
// provider whose Go types do not implement the accessors, e.g. one still on contract v1beta1.
func NewUnstructuredMachineReconciler(c client.Client, gvk schema.GroupVersionKind, steps []Step[scope.MachineScoper[*unstructured.Unstructured]], opts ...Option) (*MachineReconciler[*unstructured.Unstructured], error) {
	return newMachineReconciler(c, newUnstructured(gvk), scope.NewUnstructuredMachineScope, steps, opts)
}

func newMachineReconciler[T client.Object](c client.Client, newObject func() T, newScope func(context.Context, client.Client, T, *unstructured.Unstructured, *unstructured.Unstructured, ...scope.Option) (*scope.MachineScope[T], error), steps []Step[scope.MachineScoper[T]], opts []Option) (*MachineReconciler[T], error) {
	b, err := newStepsBase(c, newObject, steps, "InfraMachine", opts)
	if err != nil {
		return nil, err
	}
	return &MachineReconciler[T]{base: b, newObject: newObject, newScope: newScope, steps: steps}, nil
}

// Reconcile implements controller-runtime's reconcile.Reconciler.
func (r *MachineReconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.redacted(ctx, req, r.reconcile)
}

func (r *MachineReconciler[T]) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj, found, err := fetch(ctx, r.base, r.newObject, req)
	if err != nil || !found {
		return ctrl.Result{}, err
	}
	o, ok, err := r.resolveOwners(ctx, obj, "Machine")
	if err != nil || !ok {
		return ctrl.Result{}, err
	}
	ctx = withOwners(ctx, "Machine", o)
	s, err := r.newScope(ctx, r.client, obj, o.owner, o.cluster, r.scopeOptions(ctx)...)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.rememberVersion(s.ContractVersion())
	gate := provisioningGate(s.Provisioned, s.Cluster(), s.Machine().BootstrapDataSecretName)
	return r.run(ctx, s, bindSteps(r.steps, scope.MachineScoper[T](s)), gate, r.infraClusterIdentity(s.Cluster()))
}
