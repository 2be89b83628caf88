package scope

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// The interfaces in this file are what a provider's services see. They are generic in the provider's own
// type, so a service reads and writes its object's fields directly (s.InfraMachine().Spec.Image) without a
// type assertion, and they hold no lifecycle method: patching at the end, the Ready summary and change
// detection belong to the reconciler, which owns the concrete *ClusterScope[T] or *MachineScope[T].

// Patcher persists the infra object now, for checkpoints right after a cloud create.
type Patcher interface {
	// PatchNow persists every change made so far; it sends nothing when nothing changed.
	PatchNow(ctx context.Context) error
}

// SpecPatcher persists the infra object's metadata and spec now and leaves its status for later: a checkpoint
// of one API write when what must survive a crash is in spec. The scopes implement it.
type SpecPatcher interface {
	// PatchSpecNow persists the metadata and spec changes made so far; it sends nothing when there are none.
	PatchSpecNow(ctx context.Context) error
}

// ResourceTracker keeps the cloud IDs of the resources an infra object owns, the ownership key that tags
// them and the checkpoint that persists them; ensure.Exists depends on it.
type ResourceTracker interface {
	Patcher
	// OwnershipKey returns the move-safe identity of the infra object, or ErrOwnershipKeyNotPersisted.
	OwnershipKey() (string, error)
	// ResourceID returns the cloud ID recorded for key and whether there is one.
	ResourceID(key string) (string, bool)
	// SetResourceID records the cloud ID of key.
	SetResourceID(key, id string) error
	// DeleteResourceID forgets the cloud ID of key.
	DeleteResourceID(key string) error
}

// PendingTracker is implemented by a ResourceTracker that can also keep a short note per resource key about work
// in flight whose outcome is not known yet: a create the cloud may still be running, or the handle of a cloud
// operation. ensure.Exists writes the note and persists it (PatchNow) before it calls the cloud, and clears it
// once the resource's ID is recorded, so that a crash, a lost response or a delete in between cannot lose the
// resource. The scopes of this package implement it with annotations (PendingAnnotationPrefix + key), which
// clusterctl move carries; scopetest.Tracker keeps notes like IDs, persisted by PatchNow.
type PendingTracker interface {
	// Pending returns the note recorded for key, and whether there is one.
	Pending(key string) (note string, ok bool)
	// SetPending records note for key (at most MaxPendingNote bytes); it is persisted by the next PatchNow.
	SetPending(key, note string) error
	// ClearPending forgets the note of key; clearing an absent note is not an error.
	ClearPending(key string) error
}

// ResourceIDsAccessor is the resource-ID map of a provider type (status.resources by convention): resource
// key → cloud ID. A type that implements it can use the scopes' ResourceTracker; the scope writes into the
// map it returns, so a map the provider holds stays the object's.
type ResourceIDsAccessor interface {
	// GetResourceIDs returns the map, nil when there is none.
	GetResourceIDs() map[string]string
	// SetResourceIDs replaces the map.
	SetResourceIDs(ids map[string]string)
}

// ClusterInfo is what a provider reads of the owning core Cluster, decoded once when the scope is created.
type ClusterInfo struct {
	// Name is the Cluster's name; the infra object is in the same namespace.
	Name string
	// Paused is the Cluster's spec.paused.
	Paused bool
	// ControlPlaneEndpoint is the Cluster's spec.controlPlaneEndpoint, zero when unset.
	ControlPlaneEndpoint contract.APIEndpoint
	// InfrastructureProvisioned reports whether the Cluster says its infrastructure is provisioned.
	InfrastructureProvisioned bool
	// Object is the Cluster as read (cluster.x-k8s.io v1beta1 or v1beta2); treat it as read-only.
	Object *unstructured.Unstructured
}

// MachineInfo is what a provider reads of the owning core Machine, decoded once when the scope is created.
type MachineInfo struct {
	// Name is the Machine's name.
	Name string
	// ControlPlane reports whether the Machine is a control-plane machine.
	ControlPlane bool
	// Version is the Machine's spec.version (the Kubernetes version), "" when unset.
	Version string
	// FailureDomain is the failure domain Cluster API chose for the Machine (spec.failureDomain).
	FailureDomain string
	// BootstrapDataSecretName is spec.bootstrap.dataSecretName, "" until the bootstrap provider wrote it.
	BootstrapDataSecretName string
	// Object is the Machine as read (cluster.x-k8s.io v1beta1 or v1beta2); treat it as read-only.
	Object *unstructured.Unstructured
}

// ClusterScoper is the InfraCluster scope a provider's cluster services depend on, for an InfraCluster of
// type T. *ClusterScope[T] implements it; scopetest.FakeClusterScope and mocks.MockClusterScoper are its
// test doubles.
type ClusterScoper[T client.Object] interface {
	ResourceTracker
	// InfraCluster returns the InfraCluster; changes made to it are persisted by the reconciler.
	InfraCluster() T
	// Cluster returns the owning Cluster.
	Cluster() ClusterInfo
	// ContractVersion returns the contract version of the InfraCluster's CRD.
	ContractVersion() contract.Version
}

// MachineScoper is the InfraMachine scope a provider's machine services depend on, for an InfraMachine of
// type T. *MachineScope[T] implements it; scopetest.FakeMachineScope and mocks.MockMachineScoper are its
// test doubles.
type MachineScoper[T client.Object] interface {
	ResourceTracker
	// InfraMachine returns the InfraMachine; changes made to it are persisted by the reconciler.
	InfraMachine() T
	// Machine returns the owning Machine.
	Machine() MachineInfo
	// Cluster returns the Machine's Cluster.
	Cluster() ClusterInfo
	// ContractVersion returns the contract version of the InfraMachine's CRD.
	ContractVersion() contract.Version
	// BootstrapData returns the Machine's bootstrap data and its format; the data is secret.
	BootstrapData(ctx context.Context) ([]byte, BootstrapFormat, error)
}

var (
	_ ClusterScoper[client.Object] = (*ClusterScope[client.Object])(nil)
	_ MachineScoper[client.Object] = (*MachineScope[client.Object])(nil)
	_ SpecPatcher                  = (*MachineScope[client.Object])(nil)
	_ PendingTracker               = (*ClusterScope[client.Object])(nil)
	_ PendingTracker               = (*MachineScope[client.Object])(nil)
	_ PendingTracker               = (*MachinePoolScope[client.Object])(nil)
)
