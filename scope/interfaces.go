package scope

import (
	"context"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
)

// Identity names the infra object and its Cluster.
type Identity interface {
	// Name returns the infra object's name.
	Name() string
	// Namespace returns the infra object's namespace.
	Namespace() string
	// ClusterName returns the owning Cluster's name.
	ClusterName() string
}

// Patcher persists the infra object now, for checkpoints right after a cloud create.
type Patcher interface {
	// PatchNow persists every change made so far; it sends nothing when nothing changed.
	PatchNow(ctx context.Context) error
}

// SpecPatcher persists the infra object's metadata and spec now and leaves its status for later: a checkpoint
// of one API write when what must survive a crash is in spec. *ClusterScope[T] and *MachineScope[T] implement
// it.
type SpecPatcher interface {
	// PatchSpecNow persists the metadata and spec changes made so far; it sends nothing when there are none.
	PatchSpecNow(ctx context.Context) error
}

// ResourceTracker keeps the cloud IDs of the resources an infra object owns, the ownership key that tags
// them and the checkpoint that persists them; reconcile.Ensure depends on it.
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

// ConditionsAccessor gives the infra object's conditions to the helpers of package conditions.
type ConditionsAccessor interface {
	// Conditions returns a Setter over the object's conditions.
	Conditions() conditions.Setter
}

// ClusterFacts are the facts about the owning Cluster a provider reads.
type ClusterFacts interface {
	// Cluster returns the owning Cluster; read-only.
	Cluster() *unstructured.Unstructured
	// Paused reports whether reconciliation is paused.
	Paused() bool
	// ClusterControlPlaneEndpoint returns the Cluster's spec.controlPlaneEndpoint.
	ClusterControlPlaneEndpoint() contract.APIEndpoint
	// ClusterInfrastructureProvisioned reports whether the Cluster's infrastructure is provisioned.
	ClusterInfrastructureProvisioned() bool
}

// ObjectScoper is what cluster and machine scopes have in common.
type ObjectScoper interface {
	Identity
	ResourceTracker
	ConditionsAccessor
	ClusterFacts
	// Object returns the infra object.
	Object() client.Object
	// Kind returns the infra object's kind.
	Kind() string
	// ContractVersion returns the contract version in use.
	ContractVersion() contract.Version
	// Logger returns a logger with the object's names; for provider code, the SDK's helpers never log.
	Logger() logr.Logger
	// SetSummaryConditions sets the condition types Close summarizes into Ready.
	SetSummaryConditions(types ...string)
	// HasChanges reports whether the object differs from the last persisted state.
	HasChanges() (bool, error)
	// Close sets the Ready summary and persists every change.
	Close(ctx context.Context) error
}

// ClusterScoper is the InfraCluster scope a provider's cluster services depend on; *ClusterScope[T]
// implements it, and mocks.MockClusterScoper mocks it.
type ClusterScoper interface {
	ObjectScoper
	// ControlPlaneEndpoint returns the InfraCluster's spec.controlPlaneEndpoint.
	ControlPlaneEndpoint() (contract.APIEndpoint, error)
	// SetControlPlaneEndpoint sets the InfraCluster's spec.controlPlaneEndpoint.
	SetControlPlaneEndpoint(ep contract.APIEndpoint) error
	// Provisioned reports whether the InfraCluster is provisioned.
	Provisioned() bool
	// SetProvisioned sets the provisioned flag.
	SetProvisioned(provisioned bool) error
	// FailureDomains returns status.failureDomains.
	FailureDomains() ([]contract.FailureDomain, error)
	// SetFailureDomains sets status.failureDomains.
	SetFailureDomains(domains []contract.FailureDomain) error
}

// BootstrapDataReader reads a Machine's bootstrap data.
type BootstrapDataReader interface {
	// BootstrapDataSecretName returns the Machine's spec.bootstrap.dataSecretName.
	BootstrapDataSecretName() string
	// BootstrapData returns the bootstrap data and its format.
	BootstrapData(ctx context.Context) ([]byte, BootstrapFormat, error)
}

// MachineScoper is the InfraMachine scope a provider's machine services depend on; *MachineScope[T]
// implements it, and mocks.MockMachineScoper mocks it.
type MachineScoper interface {
	ObjectScoper
	BootstrapDataReader
	// Machine returns the owning Machine; read-only.
	Machine() *unstructured.Unstructured
	// IsControlPlane reports whether the Machine is a control-plane machine.
	IsControlPlane() bool
	// KubernetesVersion returns the Machine's spec.version.
	KubernetesVersion() string
	// MachineFailureDomain returns the Machine's spec.failureDomain.
	MachineFailureDomain() string
	// ProviderID returns spec.providerID.
	ProviderID() string
	// SetProviderID sets spec.providerID.
	SetProviderID(id string) error
	// Provisioned reports whether the InfraMachine is provisioned.
	Provisioned() bool
	// SetProvisioned sets the provisioned flag.
	SetProvisioned(provisioned bool) error
	// Addresses returns status.addresses.
	Addresses() []contract.MachineAddress
	// SetAddresses sets status.addresses.
	SetAddresses(addrs []contract.MachineAddress) error
	// FailureDomain returns status.failureDomain.
	FailureDomain() string
	// SetFailureDomain sets status.failureDomain.
	SetFailureDomain(fd string) error
}

var (
	_ ClusterScoper = (*ClusterScope[client.Object])(nil)
	_ MachineScoper = (*MachineScope[client.Object])(nil)
)
