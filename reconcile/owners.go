package reconcile

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/scope"
)

// owners are an infra object's owner (a Machine or a MachinePool) and its Cluster, real or placeholders.
type owners struct {
	owner, cluster *unstructured.Unstructured
}

// resolveOwners finds the owner of kind ownerKind (by owner reference) and its Cluster (by the owner's
// cluster-name label, else spec.clusterName). When the infra object is being deleted and an owner is gone, a
// placeholder stands in for it, so that the cloud resources are deleted all the same instead of leaking. ok is
// false, with nothing to do now, while Cluster API has not set the owner or the Cluster does not exist yet.
func (r *base) resolveOwners(ctx context.Context, obj client.Object, ownerKind string) (owners, bool, error) {
	log := logFrom(ctx)
	owner, err := r.ownerCore(ctx, obj, ownerKind)
	if err != nil {
		return owners{}, false, err
	}
	orphaned := r.orphaned(obj)
	if owner == nil && orphaned {
		owner = r.placeholderOwner(ownerKind, obj.GetNamespace(), ownerName(obj, ownerKind, obj.GetName()), clusterNameOf(obj))
		log.Info("owner is gone, deleting without it", ownerKind, owner.GetName())
	}
	if owner == nil {
		log.Info("waiting for Cluster API to set the owner", "kind", ownerKind)
		return owners{}, false, nil
	}
	clusterName := contract.ClusterNameOf(owner)
	if clusterName == "" {
		clusterName, _ = contract.Machine(contract.V1Beta2).ClusterName().Get(owner) // spec.clusterName, for both kinds
	}
	if clusterName == "" {
		log.Info("waiting for the owner's cluster name", ownerKind, owner.GetName())
		return owners{}, false, nil
	}
	cluster, err := r.getCore(ctx, owner.GroupVersionKind().GroupVersion().WithKind("Cluster"), obj.GetNamespace(), clusterName)
	if err != nil {
		return owners{}, false, err
	}
	if cluster == nil && orphaned {
		cluster = r.placeholderCluster(obj.GetNamespace(), clusterName, nil)
		log.Info("Cluster is gone, deleting without it", "Cluster", clusterName)
	}
	if cluster == nil {
		log.Info("waiting for the Cluster", "Cluster", clusterName)
		return owners{}, false, nil
	}
	return owners{owner: owner, cluster: cluster}, true, nil
}

// withOwners adds the owners' names to the context's logger.
func withOwners(ctx context.Context, ownerKind string, o owners) context.Context {
	return ctrl.LoggerInto(ctx, logFrom(ctx).WithValues(ownerKind, o.owner.GetName(), "Cluster", o.cluster.GetName()))
}

// provisioningGate is the wait of a machine or a machine pool before its first provisioning: for the
// Cluster's infrastructure, then for the bootstrap data secret dataSecretName. Once provisioned (a live
// check), nothing is waited for.
func provisioningGate(provisioned func() bool, cluster scope.ClusterInfo, dataSecretName string) func() string {
	return func() string {
		switch {
		case provisioned():
			return ""
		case !cluster.InfrastructureProvisioned:
			return conditions.ReasonWaitingForClusterInfrastructure
		case dataSecretName == "":
			return conditions.ReasonWaitingForBootstrapData
		}
		return ""
	}
}
