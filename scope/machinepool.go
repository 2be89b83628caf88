package scope

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// MachinePoolInfo is what a provider reads of the owning core MachinePool, decoded once when the scope is
// created.
type MachinePoolInfo struct {
	// Name is the MachinePool's name.
	Name string
	// Replicas is spec.replicas: how many instances the pool should have (1 when unset, as Cluster API
	// defaults it).
	Replicas int32
	// Version is spec.template.spec.version, the Kubernetes version of the instances.
	Version string
	// FailureDomains are spec.failureDomains, where the instances may be placed; empty means anywhere.
	FailureDomains []string
	// BootstrapDataSecretName is spec.template.spec.bootstrap.dataSecretName, "" until the bootstrap
	// provider wrote it.
	BootstrapDataSecretName string
	// Object is the MachinePool as read; treat it as read-only.
	Object *unstructured.Unstructured
}

// MachinePoolScoper is the InfraMachinePool scope a provider's machine pool services depend on.
// *MachinePoolScope[T] implements it; scopetest.FakeMachinePoolScope and mocks.MockMachinePoolScoper are its
// test doubles.
type MachinePoolScoper[T client.Object] interface {
	ResourceTracker
	// InfraMachinePool returns the InfraMachinePool; changes made to it are persisted by the reconciler.
	InfraMachinePool() T
	// MachinePool returns the owning MachinePool.
	MachinePool() MachinePoolInfo
	// Cluster returns the MachinePool's Cluster.
	Cluster() ClusterInfo
	// ContractVersion returns the contract version of the InfraMachinePool's CRD.
	ContractVersion() contract.Version
	// BootstrapData returns the MachinePool's bootstrap data and its format; the data is secret.
	BootstrapData(ctx context.Context) ([]byte, BootstrapFormat, error)
	// SetInstances records the provider IDs of the pool's instances: spec.providerIDList, sorted, and
	// status.replicas, its length, kept in step as Cluster API reads them together.
	SetInstances(providerIDs []string) error
}

// MachinePoolScope is everything a provider's machine pool services need for one reconcile of an
// InfraMachinePool of type T: the object, its MachinePool and Cluster, the contract fields, the bootstrap
// data, the ownership key, the resource-ID map and the patching.
type MachinePoolScope[T client.Object] struct {
	objectScope[T]
	pool MachinePoolInfo
}

var _ MachinePoolScoper[client.Object] = (*MachinePoolScope[client.Object])(nil)

// NewMachinePoolScope returns the scope of infraPool, owned by machinePool and cluster (core cluster.x-k8s.io
// objects, as unstructured). T satisfies contract.InfraMachinePoolObject, whose SetProvisioned sets
// status.ready too for contract v1beta2: Cluster API v1.14 reads only that for machine pools.
func NewMachinePoolScope[T contract.InfraMachinePoolObject](ctx context.Context, c client.Client, infraPool T, machinePool, cluster *unstructured.Unstructured, opts ...Option) (*MachinePoolScope[T], error) {
	return newMachinePoolScope(ctx, c, infraPool, machinePool, cluster, opts)
}

// NewUnstructuredMachinePoolScope returns the scope of an unstructured InfraMachinePool, read and written at
// the paths of its contract version, like NewUnstructuredClusterScope.
func NewUnstructuredMachinePoolScope(ctx context.Context, c client.Client, infraPool, machinePool, cluster *unstructured.Unstructured, opts ...Option) (*MachinePoolScope[*unstructured.Unstructured], error) {
	return newMachinePoolScope(ctx, c, infraPool, machinePool, cluster, opts)
}

func newMachinePoolScope[T client.Object](ctx context.Context, c client.Client, infraPool T, machinePool, cluster *unstructured.Unstructured, opts []Option) (*MachinePoolScope[T], error) {
	info, clusterName, err := machinePoolInfo(machinePool)
	if err != nil {
		return nil, fmt.Errorf("cannot create InfraMachinePool scope: %w", err)
	}
	s := &MachinePoolScope[T]{pool: info}
	if err := s.init(ctx, c, infraPool, cluster, "InfraMachinePool", opts); err != nil {
		return nil, err
	}
	if clusterName != cluster.GetName() {
		return nil, fmt.Errorf("cannot create InfraMachinePool scope: MachinePool %q has spec.clusterName %q, want %q: %w", machinePool.GetName(), clusterName, cluster.GetName(), ErrInvalidInput)
	}
	if machinePool.GetNamespace() != infraPool.GetNamespace() {
		return nil, fmt.Errorf("cannot create InfraMachinePool scope: MachinePool namespace %q differs from %q: %w", machinePool.GetNamespace(), infraPool.GetNamespace(), ErrInvalidInput)
	}
	return s, nil
}

// machinePoolInfo decodes the facts of a core MachinePool, and its spec.clusterName.
func machinePoolInfo(u *unstructured.Unstructured) (info MachinePoolInfo, clusterName string, err error) {
	v, err := coreObjectVersion(u, "MachinePool", "machinePool")
	if err != nil {
		return MachinePoolInfo{}, "", err
	}
	f := contract.MachinePool(v)
	replicas := int64(1)
	info = MachinePoolInfo{Name: u.GetName(), Object: u}
	err = errors.Join(
		read(u, f.ClusterName(), &clusterName),
		read(u, f.Replicas(), &replicas),
		read(u, f.Version(), &info.Version),
		read(u, f.FailureDomains(), &info.FailureDomains),
		read(u, f.BootstrapDataSecretName(), &info.BootstrapDataSecretName),
	)
	if err == nil && (replicas < 0 || replicas > 1<<31-1) {
		err = fmt.Errorf("spec.replicas %d is out of range", replicas)
	}
	if err != nil {
		return MachinePoolInfo{}, "", fmt.Errorf("cannot read MachinePool %q: %w", u.GetName(), err)
	}
	info.Replicas = int32(replicas)
	return info, clusterName, nil
}

// InfraMachinePool returns the InfraMachinePool; changes made to it are persisted by PatchNow and Close.
func (s *MachinePoolScope[T]) InfraMachinePool() T { return s.obj }

// Object returns the InfraMachinePool as a client.Object.
func (s *MachinePoolScope[T]) Object() client.Object { return s.obj }

// MachinePool returns the owning MachinePool's facts.
func (s *MachinePoolScope[T]) MachinePool() MachinePoolInfo { return s.pool }

// BootstrapData reads the MachinePool's bootstrap data from the Secret named by
// spec.template.spec.bootstrap.dataSecretName, as MachineScope.BootstrapData does. Cluster API's kubeadm
// bootstrap provider rewrites that Secret (same name) when it rotates the join token of a pool: read it when an
// instance must be created, never cache it.
func (s *MachinePoolScope[T]) BootstrapData(ctx context.Context) ([]byte, BootstrapFormat, error) {
	return s.bootstrapData(ctx, "MachinePool "+s.Namespace()+"/"+s.pool.Name,
		"spec.template.spec.bootstrap.dataSecretName", s.pool.BootstrapDataSecretName)
}

// ProviderIDList returns spec.providerIDList.
func (s *MachinePoolScope[T]) ProviderIDList() []string {
	return s.fields.providerIDList.GetProviderIDList()
}

// SetInstances sets spec.providerIDList to providerIDs, sorted, and status.replicas to their number. Every
// ID must have the "<provider>://<id>" form of a Node's spec.providerID and appear once.
func (s *MachinePoolScope[T]) SetInstances(providerIDs []string) error {
	ids := slices.Sorted(slices.Values(providerIDs))
	for i, id := range ids {
		if !strings.Contains(id, "://") || strings.HasSuffix(id, "://") {
			return fmt.Errorf("cannot set spec.providerIDList of %s: %q is not of the form <provider>://<id>: %w", s.desc, id, ErrInvalidInput)
		}
		if i > 0 && ids[i-1] == id {
			return fmt.Errorf("cannot set spec.providerIDList of %s: %q appears twice: %w", s.desc, id, ErrInvalidInput)
		}
	}
	if len(ids) == 0 {
		ids = nil
	}
	if !slices.Equal(ids, s.fields.providerIDList.GetProviderIDList()) {
		s.fields.providerIDList.SetProviderIDList(ids)
	}
	if n := int32(len(ids)); n != s.fields.replicas.GetStatusReplicas() { //nolint:gosec // bounded by MachinePool replicas
		s.fields.replicas.SetStatusReplicas(n)
	}
	return s.writeError()
}

// SetProvisioned sets the provisioned flag; for an unstructured InfraMachinePool of contract v1beta2 it sets
// status.ready too, which Cluster API v1.14 reads for machine pools.
func (s *MachinePoolScope[T]) SetProvisioned(provisioned bool) error {
	if err := s.objectScope.SetProvisioned(provisioned); err != nil {
		return err
	}
	if s.fields.u != nil && s.version != contract.V1Beta1 {
		if err := contract.InfraMachinePool(s.version).Ready().Set(s.fields.u.Object(), provisioned); err != nil {
			return fmt.Errorf("cannot set status.ready of %s: %w", s.desc, err)
		}
	}
	return nil
}
