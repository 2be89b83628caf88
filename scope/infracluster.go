package scope

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// ErrNoInfraCluster is wrapped by the errors of GetInfraCluster when the Cluster names no InfraCluster of the
// kind asked for, or the one it names does not exist.
var ErrNoInfraCluster = errors.New("no infrastructure cluster")

// GetInfraCluster reads into obj the InfraCluster of kind that the Cluster's spec.infrastructureRef names, in
// the Cluster's namespace, through r. A machine service uses it to read what its cluster's services recorded
// (a network ID, a namespace of the target cluster). It fails with an error wrapping ErrNoInfraCluster when
// the reference is missing, names another kind, or the object is gone.
func GetInfraCluster(ctx context.Context, r client.Reader, cluster ClusterInfo, kind string, obj client.Object) error {
	if cluster.Object == nil {
		return fmt.Errorf("cannot find the %s of Cluster %q: the Cluster was not read: %w", kind, cluster.Name, ErrNoInfraCluster)
	}
	v, err := contract.APIVersionOf(cluster.Object)
	if err != nil {
		return fmt.Errorf("cannot read Cluster %q: %w", cluster.Name, err)
	}
	ref, err := contract.Cluster(v).InfrastructureRef().Get(cluster.Object)
	if err != nil {
		return fmt.Errorf("cannot read spec.infrastructureRef of Cluster %q: %w: %w", cluster.Name, err, ErrNoInfraCluster)
	}
	name, _ := ref["name"].(string)
	if k, _ := ref["kind"].(string); k != kind || name == "" {
		return fmt.Errorf("cannot find the %s of Cluster %q: spec.infrastructureRef names %q %q: %w", kind, cluster.Name, k, name, ErrNoInfraCluster)
	}
	key := client.ObjectKey{Namespace: cluster.Object.GetNamespace(), Name: name}
	if err := r.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("cannot find %s %q: %w", kind, key, ErrNoInfraCluster)
		}
		return fmt.Errorf("cannot read %s %q: %w", kind, key, err)
	}
	return nil
}
