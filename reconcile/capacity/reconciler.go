package capacity

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/prototype"
)

// Func returns what a machine made from template t offers. A template the provider cannot size (an unknown
// flavor) returns an error naming the field and value; its status is left as it is.
type Func[T client.Object] func(t T) (contract.MachineTemplateCapacity, error)

// Reconciler keeps status.capacity and status.nodeInfo of a provider's InfraMachineTemplates of type T
// up to date, for the cluster autoscaler's scale from zero. It writes status only when it changes, with a
// merge patch of the status subresource (the template CRD needs +kubebuilder:subresource:status).
type Reconciler[T interface {
	client.Object
	contract.CapacityAccessor
}] struct {
	client    client.Client
	newObject func() T
	capacity  Func[T]
}

// NewReconcilerFor returns the reconciler of templates of object's type T, as controller-runtime's
// builder.For(object) does: object is a prototype, e.g. &v1beta2.MemMachineTemplate{}, whose type alone is used
// (each reconcile reads into a new, empty T). capacity sizes a template.
func NewReconcilerFor[T interface {
	client.Object
	contract.CapacityAccessor
}](c client.Client, object T, capacity Func[T]) (*Reconciler[T], error) {
	if c == nil || capacity == nil {
		return nil, errors.New("cannot create the capacity reconciler: client and capacity must not be nil")
	}
	newObject, err := prototype.Factory("object", object)
	if err != nil {
		return nil, fmt.Errorf("cannot create the capacity reconciler: %w", err)
	}
	return &Reconciler[T]{client: c, newObject: newObject, capacity: capacity}, nil
}

// NewReconciler returns the reconciler of templates of type T; newObject returns an empty T, capacity sizes a
// template.
//
// Deprecated: use NewReconcilerFor with an empty object, e.g. NewReconcilerFor(c,
// &v1beta2.MemMachineTemplate{}, capacity).
func NewReconciler[T interface {
	client.Object
	contract.CapacityAccessor
}](c client.Client, newObject func() T, capacity Func[T]) (*Reconciler[T], error) {
	if newObject == nil {
		return nil, errors.New("cannot create the capacity reconciler: newObject is nil")
	}
	return NewReconcilerFor(c, newObject(), capacity)
}

// Reconcile implements controller-runtime's reconcile.Reconciler.
func (r *Reconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	t := r.newObject()
	if err := r.client.Get(ctx, req.NamespacedName, t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want, err := r.capacity(t)
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "cannot size the template; its status is left as it is")
		return ctrl.Result{}, nil // a user must fix the template: retrying does not help
	}
	if equality.Semantic.DeepEqual(t.GetCapacity(), want) {
		return ctrl.Result{}, nil
	}
	base, ok := t.DeepCopyObject().(T)
	if !ok {
		return ctrl.Result{}, fmt.Errorf("cannot copy %T", t)
	}
	t.SetCapacity(want)
	if err := r.client.Status().Patch(ctx, t, client.MergeFrom(base)); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("cannot write the capacity of %s: %w", req.NamespacedName, err)
	}
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler with mgr as the controller name, watching the templates of type T.
func (r *Reconciler[T]) SetupWithManager(mgr ctrl.Manager, name string) error {
	return ctrl.NewControllerManagedBy(mgr).Named(name).For(r.newObject()).Complete(r)
}
