package reconcile

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/prototype"
	"github.com/capkit/capkit/scope"
)

// ClusterReconciler reconciles a provider's InfraCluster of type T through ordered steps. Per request it:
// fetches the object (not found: done); waits without error until Cluster API sets the owner Cluster;
// when paused (Cluster spec.paused or the paused annotation) writes Paused=True and stops; skips an
// externally managed InfraCluster; adds the finalizer and the ownership key in one patch before any cloud
// call; runs the steps, each with its condition; and closes the scope, which writes Ready and patches.
// Deletion runs the steps' Delete in reverse order and removes the finalizer when all report done; when the
// owner Cluster was deleted first, it runs with a placeholder Cluster (PlaceholderAnnotation) instead of
// waiting for an owner that will never come.
type ClusterReconciler[T client.Object] struct {
	*base
	newObject func() T
	newScope  func(context.Context, client.Client, T, *unstructured.Unstructured, ...scope.Option) (*scope.ClusterScope[T], error)
	steps     []Step[scope.ClusterScoper[T]]
}

// NewClusterReconcilerFor returns a reconciler for InfraClusters of object's type T, which satisfies
// contract.InfraClusterObject (a type that lacks one of its methods does not compile), as controller-runtime's
// builder.For(object) does: object is a prototype, e.g. &v1beta2.MemCluster{}, whose type alone is used (each
// reconcile reads into a new, empty T). steps are the provider's services in order.
func NewClusterReconcilerFor[T contract.InfraClusterObject](c client.Client, object T, steps []Step[scope.ClusterScoper[T]], opts ...Option) (*ClusterReconciler[T], error) {
	newObject, err := prototype.Factory("object", object)
	if err != nil {
		return nil, fmt.Errorf("cannot create InfraCluster reconciler: %w", err)
	}
	return newClusterReconciler(c, newObject, scope.NewClusterScope[T], steps, opts)
}

// NewClusterReconciler returns a reconciler for InfraClusters of type T; newObject returns an empty T.
//
// Deprecated: use NewClusterReconcilerFor with an empty object, e.g. NewClusterReconcilerFor(c,
// &v1beta2.MemCluster{}, steps, opts...).
func NewClusterReconciler[T contract.InfraClusterObject](c client.Client, newObject func() T, steps []Step[scope.ClusterScoper[T]], opts ...Option) (*ClusterReconciler[T], error) {
	if newObject == nil {
		return nil, errors.New("cannot create InfraCluster reconciler: newObject is nil")
	}
	return NewClusterReconcilerFor(c, newObject(), steps, opts...)
}

// NewUnstructuredClusterReconciler returns a reconciler for InfraClusters of kind gvk held as unstructured
// objects, read and written at the paths of their contract version (scope.NewUnstructuredClusterScope): for a
// provider whose Go types do not implement the accessors, e.g. one still on contract v1beta1.
func NewUnstructuredClusterReconciler(c client.Client, gvk schema.GroupVersionKind, steps []Step[scope.ClusterScoper[*unstructured.Unstructured]], opts ...Option) (*ClusterReconciler[*unstructured.Unstructured], error) {
	return newClusterReconciler(c, newUnstructured(gvk), scope.NewUnstructuredClusterScope, steps, opts)
}

func newClusterReconciler[T client.Object](c client.Client, newObject func() T, newScope func(context.Context, client.Client, T, *unstructured.Unstructured, ...scope.Option) (*scope.ClusterScope[T], error), steps []Step[scope.ClusterScoper[T]], opts []Option) (*ClusterReconciler[T], error) {
	b, err := newStepsBase(c, newObject, steps, "InfraCluster", opts)
	if err != nil {
		return nil, err
	}
	return &ClusterReconciler[T]{base: b, newObject: newObject, newScope: newScope, steps: steps}, nil
}

// Reconcile implements controller-runtime's reconcile.Reconciler.
func (r *ClusterReconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.redacted(ctx, req, r.reconcile)
}

func (r *ClusterReconciler[T]) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logFrom(ctx)
	obj, found, err := fetch(ctx, r.base, r.newObject, req)
	if err != nil || !found {
		return ctrl.Result{}, err
	}
	cluster, err := r.ownerCore(ctx, obj, "Cluster")
	if err != nil {
		return ctrl.Result{}, err
	}
	if cluster == nil && r.orphaned(obj) {
		// The Cluster went first: delete the cloud resources all the same, or they leak.
		cluster = r.placeholderCluster(obj.GetNamespace(), clusterNameOf(obj), obj)
		log.Info("owner Cluster is gone, deleting without it", "Cluster", cluster.GetName())
	}
	if cluster == nil {
		log.Info("waiting for Cluster API to set the owner Cluster")
		return ctrl.Result{}, nil
	}
	log = log.WithValues("Cluster", cluster.GetName())
	ctx = ctrl.LoggerInto(ctx, log)
	if _, ok := obj.GetAnnotations()[contract.ManagedByAnnotation]; ok {
		log.Info("externally managed, skipping")
		return ctrl.Result{}, nil
	}
	s, err := r.newScope(ctx, r.client, obj, cluster, r.scopeOptions(ctx)...)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.rememberVersion(s.ContractVersion())
	var src identitySource
	if r.identity != nil {
		if src, err = clusterIdentity(obj); err != nil {
			return ctrl.Result{}, err
		}
	}
	return r.run(ctx, s, bindSteps(r.steps, scope.ClusterScoper[T](s)), nil, src)
}

func gvkOf(c client.Client, obj client.Object) (schema.GroupVersionKind, error) {
	if obj == nil || (reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil()) {
		return schema.GroupVersionKind{}, fmt.Errorf("newObject returned nil")
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return gvk, fmt.Errorf("cannot find the kind of %T: %w", obj, err)
	}
	return gvk, nil
}

// newUnstructured returns a newObject func for unstructured objects of kind gvk.
func newUnstructured(gvk schema.GroupVersionKind) func() *unstructured.Unstructured {
	return func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u
	}
}
