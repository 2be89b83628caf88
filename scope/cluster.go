package scope

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// ClusterScope is everything a provider's cluster services need for one reconcile of an InfraCluster of
// type T: the object, its Cluster, the contract fields at the paths of the contract version in use, the
// ownership key, the resource-ID map and the patching. Create one per reconcile with NewClusterScope and
// finish it with Close.
type ClusterScope[T client.Object] struct {
	*objectScope[T]
}

// UnstructuredClusterScope is a ClusterScope over an unstructured InfraCluster.
type UnstructuredClusterScope = ClusterScope[*unstructured.Unstructured]

// NewClusterScope returns the scope of infraCluster, owned by cluster (a cluster.x-k8s.io Cluster of API
// version v1beta1 or v1beta2, as unstructured). It checks its arguments and that T has the fields of its
// contract version (spec.controlPlaneEndpoint, the provisioned flag, the conditions), and generates the
// ownership key when the object has none yet; the key is written by the next PatchNow or Close. Without
// WithContractVersion it reads the contract version from the CRD of T through c.
func NewClusterScope[T client.Object](ctx context.Context, c client.Client, infraCluster T, cluster *unstructured.Unstructured, opts ...Option) (*ClusterScope[T], error) {
	base, err := newObjectScope(ctx, c, infraCluster, cluster, "InfraCluster", func(v contract.Version) []contract.Path {
		f := contract.InfraCluster(v)
		return []contract.Path{f.ControlPlaneEndpoint().Path(), f.Provisioned().Path()}
	}, opts)
	if err != nil {
		return nil, err
	}
	return &ClusterScope[T]{objectScope: base}, nil
}

// InfraCluster returns the InfraCluster; changes made to it are persisted by PatchNow and Close.
func (s *ClusterScope[T]) InfraCluster() T { return s.obj }

// Object returns the InfraCluster as a client.Object.
func (s *ClusterScope[T]) Object() client.Object { return s.obj }

// ControlPlaneEndpoint returns the InfraCluster's spec.controlPlaneEndpoint, zero when unset.
func (s *ClusterScope[T]) ControlPlaneEndpoint() (contract.APIEndpoint, error) {
	ep, _, err := getField(s.obj, s.fields().ControlPlaneEndpoint())
	return ep, err
}

// SetControlPlaneEndpoint sets the InfraCluster's spec.controlPlaneEndpoint; host and port must both be set.
func (s *ClusterScope[T]) SetControlPlaneEndpoint(ep contract.APIEndpoint) error {
	if !ep.IsValid() {
		return fmt.Errorf("cannot set the control plane endpoint of %s: host %q and port %d must both be set: %w", s.patcher.desc, ep.Host, ep.Port, ErrInvalidInput)
	}
	return setField(s.obj, s.fields().ControlPlaneEndpoint(), s.version, ep)
}

// Provisioned reports whether the InfraCluster says its infrastructure is provisioned
// (status.initialization.provisioned in v1beta2, status.ready in v1beta1).
func (s *ClusterScope[T]) Provisioned() bool {
	ok, _, _ := getField(s.obj, s.fields().Provisioned())
	return ok
}

// SetProvisioned sets the provisioned flag at the path of the contract version.
func (s *ClusterScope[T]) SetProvisioned(provisioned bool) error {
	return setField(s.obj, s.fields().Provisioned(), s.version, provisioned)
}

// FailureDomains returns status.failureDomains sorted by name, whatever the contract version's shape.
func (s *ClusterScope[T]) FailureDomains() ([]contract.FailureDomain, error) {
	m, err := toUnstructured(s.obj)
	if err != nil {
		return nil, err
	}
	fds, err := s.fields().FailureDomains().Get(&unstructured.Unstructured{Object: m})
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("cannot read the failure domains of %s: %w", s.patcher.desc, err)
	}
	return fds, nil
}

// SetFailureDomains sets status.failureDomains in the shape of the contract version (a list in v1beta2, a
// map in v1beta1). Names must be unique and not empty.
func (s *ClusterScope[T]) SetFailureDomains(domains []contract.FailureDomain) error {
	f := s.fields().FailureDomains()
	if err := checkPath(s.obj, f.Path(), s.version); err != nil {
		return err
	}
	return mutate(s.obj, func(u *unstructured.Unstructured) error { return f.Set(u, domains) })
}

func (s *ClusterScope[T]) fields() contract.InfraClusterFields {
	return contract.InfraCluster(s.version)
}
