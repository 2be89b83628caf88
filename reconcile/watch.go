package reconcile

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/capkit/capkit/contract"
)

// ClusterNameField is the field index of the cluster.x-k8s.io/cluster-name label that the machine and machine
// pool reconcilers add to their kind in the manager's cache (IndexClusterName): ClusterToInfraMachines looks the
// machines of a Cluster up in it instead of scanning every machine of the namespace.
const ClusterNameField = "capkit.cluster-name"

// IndexClusterName adds ClusterNameField to obj's kind in indexer (a manager's mgr.GetFieldIndexer()), once
// per indexer and kind: a second call for a kind already indexed (a manager with two reconcilers of one kind)
// is a no-op. Call it before the manager starts.
func IndexClusterName(ctx context.Context, indexer client.FieldIndexer, obj client.Object) error {
	err := indexer.IndexField(ctx, obj, ClusterNameField, func(o client.Object) []string {
		if name := o.GetLabels()[contract.ClusterNameLabel]; name != "" {
			return []string{name}
		}
		return nil
	})
	// The index name is capkit's own, so a conflict is this index, added before. (Remembering the indexers
	// instead would keep every manager's cache, and every object in it, alive for the life of the process.)
	if err != nil && !strings.Contains(err.Error(), "indexer conflict") {
		return fmt.Errorf("cannot index %T by %s: %w", obj, ClusterNameField, err)
	}
	return nil
}

// ClusterToInfraMachines maps a core Cluster to every InfraMachine of kind gvk in its namespace that has
// the Cluster's cluster.x-k8s.io/cluster-name label, so machines waiting for the cluster infrastructure are
// reconciled when it becomes provisioned. c is the manager's client: the list of gvk (a kind of c's scheme)
// is served by the informer of the kind, through ClusterNameField when the kind is indexed (the machine
// reconcilers' SetupWithManager does it), else by the label; it starts no second informer.
func ClusterToInfraMachines(c client.Client, gvk schema.GroupVersionKind) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []ctrl.Request {
		log := logFrom(ctx).WithValues("Cluster", client.ObjectKeyFromObject(obj).String())
		newList := func() (client.ObjectList, error) {
			o, err := c.Scheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err != nil {
				return nil, err
			}
			list, ok := o.(client.ObjectList)
			if !ok {
				return nil, fmt.Errorf("%T is not a list", o)
			}
			return list, nil
		}
		list, err := newList()
		if err != nil {
			log.Error(err, "cannot list infra machines of a Cluster", "kind", gvk.Kind)
			return nil
		}
		ns := client.InNamespace(obj.GetNamespace())
		if err := c.List(ctx, list, ns, client.MatchingFields{ClusterNameField: obj.GetName()}); err != nil {
			// Not indexed (a client without the cache, a kind no reconciler indexed): by the label.
			list, _ = newList()
			if err := c.List(ctx, list, ns, client.MatchingLabels{contract.ClusterNameLabel: obj.GetName()}); err != nil {
				log.Error(err, "cannot list infra machines of a Cluster", "kind", gvk.Kind)
				return nil
			}
		}
		out := make([]ctrl.Request, 0, meta.LenList(list))
		_ = meta.EachListItem(list, func(o runtime.Object) error {
			if m, ok := o.(metav1.Object); ok {
				out = append(out, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: m.GetNamespace(), Name: m.GetName()}})
			}
			return nil
		})
		return out
	}
}

// clusterStatusRead are the status fields of a core Cluster that capkit's scopes read or that providers wait
// for, of both contract versions: the infrastructure-provisioned and control-plane-initialized flags.
var clusterStatusRead = [][]string{
	{"status", "initialization"},      // v1beta2: infrastructureProvisioned, controlPlaneInitialized
	{"status", "infrastructureReady"}, // v1beta1
	{"status", "controlPlaneReady"},   // v1beta1
}

// MachineChanged passes the events of core Machines that can change what an InfraMachine's reconcile does:
// creates, deletes, and updates of the spec (the generation: bootstrap.dataSecretName, version, failureDomain,
// providerID), labels, annotations, owners or deletion. It drops Cluster API's status updates (phase, addresses,
// conditions, nodeRef, the initialization flags), which come several times in a Machine's life and would each
// reconcile the InfraMachine, and so read the cloud, for nothing: the vSphere side by side (docs/benchmarks.md)
// counted 2 vCenter reads per machine after provisioning for them. A step that reads a field of Machine status
// sees it at its next reconcile (a requeue, a resync, or an event of its own object).
func MachineChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		oldObj, newObj := e.ObjectOld, e.ObjectNew
		if oldObj == nil || newObj == nil {
			return true
		}
		return oldObj.GetGeneration() != newObj.GetGeneration() ||
			!equality.Semantic.DeepEqual(oldObj.GetLabels(), newObj.GetLabels()) ||
			!equality.Semantic.DeepEqual(oldObj.GetAnnotations(), newObj.GetAnnotations()) ||
			!equality.Semantic.DeepEqual(oldObj.GetOwnerReferences(), newObj.GetOwnerReferences()) ||
			!equality.Semantic.DeepEqual(oldObj.GetDeletionTimestamp(), newObj.GetDeletionTimestamp())
	}}
}

// ClusterChanged passes the events of core Clusters that can change what an infra object's reconcile does:
// creates, deletes, and updates of the spec (the generation: paused, controlPlaneEndpoint, infrastructureRef,
// topology), labels, annotations, deletion or the status flags of initialization (infrastructure provisioned,
// control plane initialized). It drops Cluster API's other status updates (conditions, replica counters,
// failure domains): each would otherwise reconcile the InfraCluster and every machine of the cluster once,
// for nothing. A step that reads another field of Cluster status sees it at its next reconcile.
func ClusterChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		oldObj, newObj := e.ObjectOld, e.ObjectNew
		if oldObj == nil || newObj == nil {
			return true
		}
		if oldObj.GetGeneration() != newObj.GetGeneration() ||
			!equality.Semantic.DeepEqual(oldObj.GetLabels(), newObj.GetLabels()) ||
			!equality.Semantic.DeepEqual(oldObj.GetAnnotations(), newObj.GetAnnotations()) ||
			!equality.Semantic.DeepEqual(oldObj.GetDeletionTimestamp(), newObj.GetDeletionTimestamp()) {
			return true
		}
		oldU, ok1 := oldObj.(*unstructured.Unstructured)
		newU, ok2 := newObj.(*unstructured.Unstructured)
		if !ok1 || !ok2 {
			return true // a typed Cluster: no field is read here, pass it
		}
		for _, path := range clusterStatusRead {
			o, _, _ := unstructured.NestedFieldNoCopy(oldU.Object, path...)
			n, _, _ := unstructured.NestedFieldNoCopy(newU.Object, path...)
			if !equality.Semantic.DeepEqual(o, n) {
				return true
			}
		}
		return false
	}}
}
