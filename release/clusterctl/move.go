package clusterctl

import (
	"fmt"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// RuleCRDMoveLabel is the rule that a cluster-scoped CRD that plays no contract role (e.g. a provider's
// MemClusterIdentity) carries clusterctl.cluster.x-k8s.io/move or clusterctl.cluster.x-k8s.io/move-hierarchy.
// clusterctl move takes only objects owned, through ownerReferences, by a Cluster, or labelled for the move, and a
// cluster-scoped object cannot be owned by a namespaced Cluster: without a label on the CRD (or on every object)
// its objects stay behind on the old management cluster. The label belongs on the CRD, since no file shows the
// objects a provider creates at run time. CheckFiles applies it to the CRDs of every file, the
// components and config/crd/bases alike; lint.CheckCRD does not, because it also checks CRDs as installed, where the
// label may come from elsewhere.
const RuleCRDMoveLabel = "crd.move-label"

// checkMoveLabel returns the violation of RuleCRDMoveLabel for the CRD of document d, and false, or true when there
// is none. A contract kind (known) is not judged here: lint.CheckCRD requires it to be namespaced.
func checkMoveLabel(d Document, crd *apiextensionsv1.CustomResourceDefinition, known bool) (lint.Violation, bool) {
	if known || crd.Spec.Scope != apiextensionsv1.ClusterScoped || contract.HasMoveLabel(crd) {
		return lint.Violation{}, true
	}
	return lint.Violation{Rule: RuleCRDMoveLabel, Object: d.ObjectRef(), Path: "metadata.labels",
		Message: fmt.Sprintf("cluster-scoped kind %s has neither the %q nor the %q label: no namespaced Cluster can own its objects, so clusterctl move would leave them behind; "+
			"label the CRD, e.g. with the marker +kubebuilder:metadata:labels=%q on the type (move-hierarchy moves the objects they own too)",
			crd.Spec.Names.Kind, contract.MoveLabel, contract.MoveHierarchyLabel, contract.MoveHierarchyLabel+"=")}, false
}
