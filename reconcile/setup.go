package reconcile

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/scope"
)

// ResourceNotPaused passes objects without the cluster.x-k8s.io/paused annotation. The reconcilers of this
// package do not need it (they write the Paused condition themselves); it is for a provider's other watches.
func ResourceNotPaused() predicate.Predicate {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		_, paused := obj.GetAnnotations()[contract.PausedAnnotation]
		return !paused
	})
}

// ResourceNotExternallyManaged passes objects without the cluster.x-k8s.io/managed-by annotation.
func ResourceNotExternallyManaged() predicate.Predicate {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		_, managed := obj.GetAnnotations()[contract.ManagedByAnnotation]
		return !managed
	})
}

// ResourceHasFilterLabel passes objects whose cluster.x-k8s.io/watch-filter label equals value; an empty
// value passes everything.
func ResourceHasFilterLabel(value string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return value == "" || obj.GetLabels()[contract.WatchFilterLabel] == value
	})
}

// refersTo reports whether an infrastructureRef (v1beta1: apiVersion/kind/name; v1beta2: apiGroup/kind/name)
// points at kind gk, and returns the name.
func refersTo(ref map[string]any, gk schema.GroupKind) (string, bool) {
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	group, _ := ref["apiGroup"].(string)
	if apiVersion, ok := ref["apiVersion"].(string); ok && group == "" {
		if gv, err := schema.ParseGroupVersion(apiVersion); err == nil {
			group = gv.Group
		}
	}
	return name, name != "" && kind == gk.Kind && group == gk.Group
}

// coreRefMapper maps a core object (Cluster or Machine, unstructured or not) to the infra object of kind gk
// its spec.infrastructureRef names, in the same namespace.
func coreRefMapper(gk schema.GroupKind) handler.MapFunc {
	return refMapper(gk, "spec", "infrastructureRef")
}

// refMapper maps an unstructured core object to the infra object of kind gk the reference at path names.
func refMapper(gk schema.GroupKind, path ...string) handler.MapFunc {
	return func(_ context.Context, obj client.Object) []ctrl.Request {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil
		}
		ref, found, err := unstructured.NestedMap(u.Object, path...)
		if err != nil || !found {
			return nil
		}
		name, ok := refersTo(ref, gk)
		if !ok {
			return nil
		}
		return []ctrl.Request{{NamespacedName: client.ObjectKey{Namespace: u.GetNamespace(), Name: name}}}
	}
}

// ClusterToInfraCluster maps an unstructured core Cluster to the InfraCluster of kind gk it references.
func ClusterToInfraCluster(gk schema.GroupKind) handler.MapFunc { return coreRefMapper(gk) }

// MachineToInfraMachine maps an unstructured core Machine to the InfraMachine of kind gk it references.
func MachineToInfraMachine(gk schema.GroupKind) handler.MapFunc { return coreRefMapper(gk) }

// MachinePoolToInfraMachinePool maps an unstructured core MachinePool to the InfraMachinePool of kind gk its
// spec.template.spec.infrastructureRef names.
func MachinePoolToInfraMachinePool(gk schema.GroupKind) handler.MapFunc {
	return refMapper(gk, "spec", "template", "spec", "infrastructureRef")
}

func (r *base) core(kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: contract.GroupName, Version: string(r.coreVersion), Kind: kind})
	return u
}

// SetupWithManager registers the reconciler with mgr: it watches the InfraCluster kind (not externally
// managed, matching the watch filter) and core Clusters, mapped to the InfraCluster they reference. Without
// WithEventRecorder, events go to the manager's recorder named after the controller (the lower-case kind).
func (r *ClusterReconciler[T]) SetupWithManager(mgr ctrl.Manager) error {
	if r.identity != nil {
		if _, err := clusterIdentity(r.newObject()); err != nil {
			return fmt.Errorf("cannot use identities: %w", err)
		}
	}
	r.useManagerRecorder(mgr)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(lower(r.kind.Kind)).
		WithOptions(r.controllerOptions(mgr)).
		For(r.newObject(), builder.WithPredicates(ResourceNotExternallyManaged(), ResourceHasFilterLabel(r.watchFilter))).
		Watches(r.core("Cluster"), handler.EnqueueRequestsFromMapFunc(ClusterToInfraCluster(r.kind.GroupKind())),
			builder.WithPredicates(ResourceHasFilterLabel(r.watchFilter), ClusterChanged()))
	b, err := r.watchIdentities(b, mgr, clusterRequests)
	if err != nil {
		return err
	}
	return b.Complete(r)
}

// SetupWithManager registers the reconciler with mgr: it watches the InfraMachine kind (matching the watch
// filter), core Machines mapped to the InfraMachine they reference, and core Clusters mapped to their
// InfraMachines. Its scopes read bootstrap data Secrets through mgr.GetAPIReader() unless the provider's
// scope options say otherwise (scope.WithSecretReader). Without WithEventRecorder, events go to the manager's
// recorder named after the controller (the lower-case kind).
func (r *MachineReconciler[T]) SetupWithManager(mgr ctrl.Manager) error {
	return r.setupOwned(mgr, r, r.newObject(), "Machine", MachineToInfraMachine(r.kind.GroupKind()), MachineChanged())
}

// setupOwned registers rec, the reconciler of infra objects like forObj owned by core objects of ownerKind
// (a Machine, a MachinePool): it indexes forObj's kind by cluster name (IndexClusterName), and watches forObj's
// kind, the owners mapped by ownerMapper (filtered by ownerPredicates: MachineChanged for Machines), the Clusters mapped to their infra objects (ClusterChanged), and with identities the identities and their Secrets. Bootstrap data Secrets are
// read through mgr.GetAPIReader(), and only when an instance must be created: a cached read would start an
// informer on every Secret of the cluster. A provider's own scope.WithSecretReader comes later and wins.
func (r *base) setupOwned(mgr ctrl.Manager, rec crreconcile.Reconciler, forObj client.Object, ownerKind string, ownerMapper handler.MapFunc, ownerPredicates ...predicate.Predicate) error {
	if err := IndexClusterName(context.Background(), mgr.GetFieldIndexer(), forObj); err != nil {
		return err
	}
	r.scopeOpts = append([]scope.Option{scope.WithSecretReader(mgr.GetAPIReader())}, r.scopeOpts...)
	r.useManagerRecorder(mgr)
	b := ctrl.NewControllerManagedBy(mgr).
		Named(lower(r.kind.Kind)).
		WithOptions(r.controllerOptions(mgr)).
		For(forObj, builder.WithPredicates(ResourceHasFilterLabel(r.watchFilter))).
		Watches(r.core(ownerKind), handler.EnqueueRequestsFromMapFunc(ownerMapper),
			builder.WithPredicates(append([]predicate.Predicate{ResourceHasFilterLabel(r.watchFilter)}, ownerPredicates...)...)).
		Watches(r.core("Cluster"), handler.EnqueueRequestsFromMapFunc(ClusterToInfraMachines(mgr.GetClient(), r.kind)),
			builder.WithPredicates(ResourceHasFilterLabel(r.watchFilter), ClusterChanged()))
	b, err := r.watchIdentities(b, mgr, machineRequests(mgr.GetClient(), r.kind))
	if err != nil {
		return err
	}
	return b.Complete(rec)
}

// useManagerRecorder makes the reconciler emit its events through mgr's recorder named after the controller,
// unless WithEventRecorder gave one: an event always has somewhere to go.
func (r *base) useManagerRecorder(mgr ctrl.Manager) {
	if r.recorder == nil {
		r.recorder = mgr.GetEventRecorder(lower(r.kind.Kind))
	}
}

// controllerOptions are the options of the controller SetupWithManager builds: WithMaxConcurrentReconciles,
// and controller-runtime's plain work queue unless mgr's controller options choose a queue
// (config.Controller.UsePriorityQueue). controller-runtime v0.24.1's priority queue, its default, can deadlock
// when its controller stops with two workers or more (kubernetes-sigs/controller-runtime#3538): the manager
// then never stops, and a rolling update of the provider waits for the kubelet to kill it. The plain queue
// gets the priority queue's retry backoff (5 ms doubling to 1,000 s per object), so only the queue changes.
func (r *base) controllerOptions(mgr ctrl.Manager) controller.Options {
	o := controller.Options{MaxConcurrentReconciles: r.concurrency}
	if mgr.GetControllerOptions().UsePriorityQueue == nil {
		o.UsePriorityQueue = ptr.To(false)
		o.RateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[crreconcile.Request](5*time.Millisecond, 1000*time.Second)
	}
	return o
}
