package scope

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// ClusterScope is everything a provider's cluster services need for one reconcile of an InfraCluster of
// type T: the object, its Cluster, the contract fields, the ownership key, the resource-ID map and the
// patching. Create one per reconcile with NewClusterScope and finish it with Close.
type ClusterScope[T client.Object] struct {
	objectScope[T]
}

// UnstructuredClusterScope is a ClusterScope over an unstructured InfraCluster.
type UnstructuredClusterScope = ClusterScope[*unstructured.Unstructured]

// NewClusterScope returns the scope of infraCluster, owned by cluster (a cluster.x-k8s.io Cluster of API
// version v1beta1 or v1beta2, as unstructured). T satisfies contract.InfraClusterObject; where it also
// implements contract.FailureDomainsAccessor and ResourceIDsAccessor, the setters that need them work. The
// ownership key is generated when the object has none yet and written by the next PatchNow or Close. Without
// WithContractVersion the version is read from the CRD of T through c.
func NewClusterScope[T contract.InfraClusterObject](ctx context.Context, c client.Client, infraCluster T, cluster *unstructured.Unstructured, opts ...Option) (*ClusterScope[T], error) {
	return newClusterScope(ctx, c, infraCluster, cluster, opts)
}

// NewUnstructuredClusterScope returns the scope of an unstructured InfraCluster, read and written at the
// paths of its contract version (from its CRD's label, or WithContractVersion); the constructor validates
// every contract field the object holds. Resource IDs live at status.resources unless WithResourcesPath says
// otherwise.
func NewUnstructuredClusterScope(ctx context.Context, c client.Client, infraCluster *unstructured.Unstructured, cluster *unstructured.Unstructured, opts ...Option) (*UnstructuredClusterScope, error) {
	return newClusterScope(ctx, c, infraCluster, cluster, opts)
}

func newClusterScope[T client.Object](ctx context.Context, c client.Client, infraCluster T, cluster *unstructured.Unstructured, opts []Option) (*ClusterScope[T], error) {
	s := &ClusterScope[T]{}
	if err := s.init(ctx, c, infraCluster, cluster, "InfraCluster", opts); err != nil {
		return nil, err
	}
	return s, nil
}

// InfraCluster returns the InfraCluster; changes made to it are persisted by PatchNow and Close.
func (s *ClusterScope[T]) InfraCluster() T { return s.obj }

// Object returns the InfraCluster as a client.Object.
func (s *ClusterScope[T]) Object() client.Object { return s.obj }

// ControlPlaneEndpoint returns the InfraCluster's spec.controlPlaneEndpoint, zero when unset.
func (s *ClusterScope[T]) ControlPlaneEndpoint() contract.APIEndpoint {
	return s.fields.endpoint.GetControlPlaneEndpoint()
}

// SetControlPlaneEndpoint sets the InfraCluster's spec.controlPlaneEndpoint; host and port must both be set.
func (s *ClusterScope[T]) SetControlPlaneEndpoint(ep contract.APIEndpoint) error {
	if !ep.IsValid() {
		return fmt.Errorf("cannot set spec.controlPlaneEndpoint of %s: host %q and port %d must both be set: %w", s.desc, ep.Host, ep.Port, ErrInvalidInput)
	}
	s.fields.endpoint.SetControlPlaneEndpoint(ep)
	return s.writeError()
}

// FailureDomains returns status.failureDomains, whatever the contract version's shape.
func (s *ClusterScope[T]) FailureDomains() ([]contract.FailureDomain, error) {
	if err := missing(s.obj, s.fields.failureDomains != nil, accFDs); err != nil {
		return nil, err
	}
	return s.fields.failureDomains.GetFailureDomains(), nil
}

// SetFailureDomains sets status.failureDomains, sorted by name (in the shape of the contract version for an
// unstructured InfraCluster). Names must be unique and not empty.
func (s *ClusterScope[T]) SetFailureDomains(domains []contract.FailureDomain) error {
	if err := missing(s.obj, s.fields.failureDomains != nil, accFDs); err != nil {
		return fmt.Errorf("cannot set status.failureDomains of %s: %w", s.desc, err)
	}
	if err := contract.ValidateFailureDomains(domains); err != nil {
		return fmt.Errorf("cannot set status.failureDomains of %s: %w: %w", s.desc, err, ErrInvalidInput)
	}
	sorted := slices.Clone(domains)
	contract.SortFailureDomains(sorted)
	s.fields.failureDomains.SetFailureDomains(sorted)
	return s.writeError()
}
