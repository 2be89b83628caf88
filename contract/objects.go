package contract

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
)

// The interfaces in this file are the type contract of each infrastructure kind: what a provider's Go type
// must implement to be given to capkit's typed scopes and reconcilers (scope.NewClusterScope,
// reconcile.NewMachineReconcilerFor, …). They are type constraints, so a type that lacks a method does not
// compile, and the compiler names the method:
//
//	T (type *FooMachine) does not satisfy contract.InfraMachineObject (missing method IsProvisioned)
//
// Each lists only the fields the contract requires of every provider of the kind. The optional ones
// (FailureDomainsAccessor, AddressesAccessor, StatusFailureDomainAccessor, scope.ResourceIDsAccessor) are
// used where the type has them, and a setter of one the type lacks returns an error naming it.
// `capkit generate accessors` writes every accessor a type's fields allow, so a provider writes none by hand.

// InfraClusterObject is the type contract of an InfraCluster: conditions, status.initialization.provisioned
// and spec.controlPlaneEndpoint.
type InfraClusterObject interface {
	client.Object
	conditions.Setter
	ProvisionedAccessor
	ControlPlaneEndpointAccessor
}

// InfraMachineObject is the type contract of an InfraMachine: conditions,
// status.initialization.provisioned and spec.providerID.
type InfraMachineObject interface {
	client.Object
	conditions.Setter
	ProvisionedAccessor
	ProviderIDAccessor
}

// InfraMachinePoolObject is the type contract of an InfraMachinePool: conditions, the provisioned flag,
// spec.providerIDList and status.replicas.
type InfraMachinePoolObject interface {
	client.Object
	conditions.Setter
	ProvisionedAccessor
	ProviderIDListAccessor
	ReplicasAccessor
}
