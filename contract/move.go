package contract

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Labels and annotations of "clusterctl move", which moves a workload cluster's objects from one management
// cluster to another.
//
// clusterctl move looks only at the kinds of the CRDs that carry ClusterctlLabel (clusterctl init sets it on every
// CRD it installs), and at Secrets and ConfigMaps. Of the objects of those kinds it moves the ones that are linked by
// ownerReferences to a Cluster or a ClusterResourceSet, the ones linked by ownerReferences to an object that
// carries MoveHierarchyLabel, and the ones that carry MoveLabel or MoveHierarchyLabel themselves. A label on a CRD
// counts for every object of its kind. Everything else stays behind on the old management cluster.
const (
	// ClusterctlLabel is on every CRD that clusterctl init installs; clusterctl move discovers the kinds to move
	// from the CRDs that carry it. clusterctl sets it: providers do not.
	ClusterctlLabel = "clusterctl.cluster.x-k8s.io"
	// MoveLabel makes clusterctl move take the object that carries it, alone (objects it owns move only if
	// something else moves them). On a CRD it applies to every object of the kind.
	MoveLabel = "clusterctl.cluster.x-k8s.io/move"
	// MoveHierarchyLabel makes clusterctl move take the object that carries it together with every object linked
	// to it by ownerReferences, e.g. an identity and the Secret it owns. On a CRD it applies to every object of
	// the kind.
	MoveHierarchyLabel = "clusterctl.cluster.x-k8s.io/move-hierarchy"
	// BlockMoveAnnotation, on any object to be moved, keeps clusterctl move from creating anything on the target
	// management cluster until it is removed. A controller that cannot stop at once when its Cluster is paused
	// sets it, and removes it when its work has stopped.
	BlockMoveAnnotation = "clusterctl.cluster.x-k8s.io/block-move"
	// DeleteForMoveAnnotation is the annotation clusterctl move puts on each object it deletes from the source
	// cluster after copying it to the target; the object's cloud resources live on and must not be deleted.
	DeleteForMoveAnnotation = "clusterctl.cluster.x-k8s.io/delete-for-move"
)

// MarkForMove adds MoveLabel to obj, keeping its other labels, and reports whether obj changed. Call it on an
// object the provider creates that nothing moved owns and that owns nothing that must follow it, e.g. a Secret of
// cloud-provider configuration that objects name but do not own. Objects in the ownerReference chain of a Cluster
// (an InfraMachine, its bootstrap data) move without a label.
//
// Set the label before the object is created, so that there is no moment when a move would leave it behind. A
// cluster-scoped object marked this way is copied to the target cluster but not deleted from the source.
func MarkForMove(obj metav1.Object) bool { return addLabel(obj, MoveLabel) }

// MarkMoveHierarchy adds MoveHierarchyLabel to obj, keeping its other labels, and reports whether obj changed. Call
// it on a root object that no Cluster owns and whose owned objects must follow it, e.g. an identity (often
// cluster-scoped, so that no namespaced Cluster can own it) that owns the Secret holding its credentials: the
// identity and everything linked to it by ownerReferences move together.
//
// When every object of a kind is such a root, label the CRD instead, with the kubebuilder marker
// +kubebuilder:metadata:labels="clusterctl.cluster.x-k8s.io/move-hierarchy=" on the type. Objects of a
// hierarchy that starts at a cluster-scoped object are copied to the target cluster but not deleted from the
// source.
func MarkMoveHierarchy(obj metav1.Object) bool { return addLabel(obj, MoveHierarchyLabel) }

// HasMoveLabel reports whether obj (an object or a CRD) carries MoveLabel or MoveHierarchyLabel, whatever their
// values: clusterctl looks only for the keys.
func HasMoveLabel(obj metav1.Object) bool {
	if obj == nil {
		return false
	}
	labels := obj.GetLabels()
	_, move := labels[MoveLabel]
	_, hierarchy := labels[MoveHierarchyLabel]
	return move || hierarchy
}

// BlockMove adds BlockMoveAnnotation to obj, keeping its other annotations, and reports whether obj changed. A
// controller calls it (and persists the object) when its Cluster is paused but work it started in the cloud is
// still running, so that clusterctl move waits; it calls UnblockMove when that work has stopped.
func BlockMove(obj metav1.Object) bool {
	if obj == nil {
		return false
	}
	annotations := obj.GetAnnotations()
	if _, ok := annotations[BlockMoveAnnotation]; ok {
		return false
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[BlockMoveAnnotation] = ""
	obj.SetAnnotations(annotations)
	return true
}

// UnblockMove removes BlockMoveAnnotation from obj and reports whether obj changed.
func UnblockMove(obj metav1.Object) bool {
	if obj == nil {
		return false
	}
	annotations := obj.GetAnnotations()
	if _, ok := annotations[BlockMoveAnnotation]; !ok {
		return false
	}
	delete(annotations, BlockMoveAnnotation)
	if len(annotations) == 0 {
		annotations = nil // no empty map left in the object
	}
	obj.SetAnnotations(annotations)
	return true
}

// addLabel sets key to "" unless obj already has it (clusterctl reads only the key), and reports whether obj changed.
func addLabel(obj metav1.Object, key string) bool {
	if obj == nil {
		return false
	}
	labels := obj.GetLabels()
	if _, ok := labels[key]; ok {
		return false
	}
	if labels == nil {
		labels = map[string]string{}
	}
	labels[key] = ""
	obj.SetLabels(labels)
	return true
}
