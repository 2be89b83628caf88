package reconcile

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/capkit/capkit/contract"
)

// PlaceholderAnnotation marks the core Cluster or Machine a reconciler builds in place of an owner that
// was deleted before the infra object: the deletion still runs, so that the cloud resources do not leak
// and the finalizer is removed. A placeholder holds only the owner's name and namespace, the cluster
// name, and for a Cluster the reference to its InfraCluster; services that read anything else of it in
// Delete must cope with it being absent (scope.Cluster() and scope.Machine() return it).
const PlaceholderAnnotation = "capkit.io/placeholder-owner"

// orphaned reports whether obj is being deleted with the reconciler's finalizer still on it: then a
// missing owner must not block the deletion.
func (r *base) orphaned(obj client.Object) bool {
	return !obj.GetDeletionTimestamp().IsZero() && controllerutil.ContainsFinalizer(obj, r.finalizer)
}

// ownerName returns the name in obj's owner reference to the core kind, else fallback.
func ownerName(obj client.Object, kind, fallback string) string {
	for _, ref := range obj.GetOwnerReferences() {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil && gv.Group == contract.GroupName && ref.Kind == kind {
			return ref.Name
		}
	}
	return fallback
}

// clusterNameOf returns the name of obj's Cluster: its owner reference to a Cluster, its cluster-name
// label, else its own name (an InfraCluster is usually named after its Cluster).
func clusterNameOf(obj client.Object) string {
	fallback := obj.GetName()
	if l := obj.GetLabels()[contract.ClusterNameLabel]; l != "" {
		fallback = l
	}
	return ownerName(obj, "Cluster", fallback)
}

// placeholderCluster returns a Cluster of the reconciler's core version standing in for a deleted one.
// infraRef, when not nil, is the InfraCluster it references.
func (r *base) placeholderCluster(namespace, name string, infraRef client.Object) *unstructured.Unstructured {
	u := r.placeholder("Cluster", namespace, name)
	if infraRef != nil {
		_ = contract.Cluster(r.coreVersion).InfrastructureRef().Set(u, r.ref(infraRef))
	}
	return u
}

// placeholderOwner returns a Machine or MachinePool (kind) standing in for a deleted one, of the given Cluster.
func (r *base) placeholderOwner(kind, namespace, name, clusterName string) *unstructured.Unstructured {
	u := r.placeholder(kind, namespace, name)
	u.SetLabels(map[string]string{contract.ClusterNameLabel: clusterName})
	_ = contract.Machine(r.coreVersion).ClusterName().Set(u, clusterName) // spec.clusterName, for both kinds
	return u
}

func (r *base) placeholder(kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(contract.GroupName + "/" + string(r.coreVersion))
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetAnnotations(map[string]string{PlaceholderAnnotation: "true"})
	return u
}

// ref returns a reference to obj in the shape of the reconciler's core version.
func (r *base) ref(obj client.Object) map[string]any {
	if r.coreVersion == contract.V1Beta1 {
		return map[string]any{"apiVersion": r.kind.GroupVersion().String(), "kind": r.kind.Kind, "name": obj.GetName(), "namespace": obj.GetNamespace()}
	}
	return map[string]any{"apiGroup": r.kind.Group, "kind": r.kind.Kind, "name": obj.GetName()}
}
