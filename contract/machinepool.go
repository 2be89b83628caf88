package contract

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The InfraMachinePool (e.g. AWSMachinePool, MemMachinePool) is the infrastructure of a core MachinePool: one
// cloud instance group whose size is the MachinePool's spec.replicas. Cluster API v1.14's MachinePool
// controller reads it as follows (core/reconcilers/machinepool, read for the facts):
//
//   - spec.providerIDList: the provider IDs of the group's instances, matched with the Nodes of the workload
//     cluster; copied to the MachinePool's spec.providerIDList, and Nodes whose IDs leave the list are
//     deleted from the workload cluster.
//   - status.replicas: how many instances the group has; read together with the list, which it must match.
//   - status.ready: the provisioned flag, read for both contract versions. Contract v1beta2 documents
//     status.initialization.provisioned, which Cluster API v1.14 does not read yet for MachinePools: a
//     v1beta2 InfraMachinePool sets both (SetMachinePoolProvisioned; a typed one's SetProvisioned does).
//   - status.infrastructureMachineKind: optional; set, it turns on MachinePool Machines, one InfraMachine of
//     that kind per instance, labelled cluster.x-k8s.io/pool-name.
//   - status.failureReason and status.failureMessage (v1beta1): Cluster API v1.14.2 fails to reconcile a
//     MachinePool whose InfraMachinePool sets them; capkit never sets them and its checker warns.

// The InfraMachinePool's own paths.
var (
	pathSpecProviderIDList              = Path{"spec", "providerIDList"}
	pathStatusReplicas                  = Path{"status", "replicas"}
	pathStatusInfrastructureMachineKind = Path{"status", "infrastructureMachineKind"}
	pathStatusFailureReason             = Path{"status", "failureReason"}
	pathStatusFailureMessage            = Path{"status", "failureMessage"}
)

// InfraMachinePoolFields are the contract fields of an InfraMachinePool for one contract version.
type InfraMachinePoolFields struct{ version Version }

// InfraMachinePool returns the InfraMachinePool contract fields of contract version v.
func InfraMachinePool(v Version) InfraMachinePoolFields { return InfraMachinePoolFields{version: v} }

// ProviderIDList is spec.providerIDList, the same in every contract version.
func (c InfraMachinePoolFields) ProviderIDList() Field[[]string] {
	return fieldAt[[]string](pathSpecProviderIDList)
}

// Replicas is status.replicas, the same in every contract version.
func (c InfraMachinePoolFields) Replicas() Field[int64] { return fieldAt[int64](pathStatusReplicas) }

// Provisioned is status.ready (v1beta1) or status.initialization.provisioned (v1beta2). Cluster API v1.14
// reads status.ready for both: set Ready too (SetMachinePoolProvisioned).
func (c InfraMachinePoolFields) Provisioned() Field[bool] {
	return pick(c.version, fieldAt[bool](pathStatusReady), fieldAt[bool](pathStatusInitializationProvisioned))
}

// Ready is status.ready, which Cluster API v1.14's MachinePool controller reads whatever the contract version.
func (c InfraMachinePoolFields) Ready() Field[bool] { return fieldAt[bool](pathStatusReady) }

// InfrastructureMachineKind is status.infrastructureMachineKind: the kind of the InfraMachines of a pool with
// MachinePool Machines, unset otherwise.
func (c InfraMachinePoolFields) InfrastructureMachineKind() Field[string] {
	return fieldAt[string](pathStatusInfrastructureMachineKind)
}

// FailureReason and FailureMessage are status.failureReason and status.failureMessage (v1beta1 only): never set
// them for Cluster API v1.14 (see the package comment of InfraMachinePool).
func (c InfraMachinePoolFields) FailureReason() Field[string] {
	return fieldAt[string](pathStatusFailureReason)
}

// FailureMessage is status.failureMessage; see FailureReason.
func (c InfraMachinePoolFields) FailureMessage() Field[string] {
	return fieldAt[string](pathStatusFailureMessage)
}

// Conditions is where metav1.Conditions live: status.v1beta2.conditions (v1beta1) or status.conditions (v1beta2).
func (c InfraMachinePoolFields) Conditions() Field[[]metav1.Condition] {
	return conditionsField(c.version)
}

// InfraMachinePoolInitialization is the v1beta2 InfraMachinePool status.initialization.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:object:generate=true
type InfraMachinePoolInitialization struct {
	// provisioned is true when the infrastructure provider reports that the machine pool's infrastructure is
	// provisioned. Cluster API v1.14 still reads status.ready for machine pools: set both.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// IsProvisioned reports whether provisioned is set and true.
func (i InfraMachinePoolInitialization) IsProvisioned() bool {
	return i.Provisioned != nil && *i.Provisioned
}

// SetProvisioned sets provisioned.
func (i *InfraMachinePoolInitialization) SetProvisioned(v bool) { i.Provisioned = &v }

// ProviderIDListAccessor is an InfraMachinePool's spec.providerIDList.
type ProviderIDListAccessor interface {
	// GetProviderIDList returns spec.providerIDList.
	GetProviderIDList() []string
	// SetProviderIDList sets spec.providerIDList.
	SetProviderIDList(ids []string)
}

// ReplicasAccessor is an InfraMachinePool's status.replicas.
type ReplicasAccessor interface {
	// GetStatusReplicas returns status.replicas.
	GetStatusReplicas() int32
	// SetStatusReplicas sets status.replicas.
	SetStatusReplicas(n int32)
}

// SetMachinePoolProvisioned sets the provisioned flag of the InfraMachinePool u of contract version v where
// Cluster API reads it: status.initialization.provisioned (v1beta2) and status.ready (every version).
func SetMachinePoolProvisioned(u *unstructured.Unstructured, v Version, provisioned bool) error {
	f := InfraMachinePool(v)
	if err := f.Provisioned().Set(u, provisioned); err != nil {
		return err
	}
	return f.Ready().Set(u, provisioned)
}

// The core MachinePool's paths, the same in v1beta1 and v1beta2.
var (
	pathSpecReplicas                           = Path{"spec", "replicas"}
	pathSpecFailureDomains                     = Path{"spec", "failureDomains"}
	pathSpecTemplateSpecVersion                = Path{"spec", "template", "spec", "version"}
	pathSpecTemplateSpecBootstrapDataSecretRef = Path{"spec", "template", "spec", "bootstrap", "dataSecretName"}
	pathSpecTemplateSpecInfrastructureRef      = Path{"spec", "template", "spec", "infrastructureRef"}
)

// MachinePoolFields are the fields of a core MachinePool (cluster.x-k8s.io) that an infrastructure provider
// reads.
type MachinePoolFields struct{ version Version }

// MachinePool returns the core MachinePool fields of API version v.
func MachinePool(v Version) MachinePoolFields { return MachinePoolFields{version: v} }

// ClusterName is spec.clusterName.
func (c MachinePoolFields) ClusterName() Field[string] { return fieldAt[string](pathSpecClusterName) }

// Replicas is spec.replicas, the number of instances the pool should have (Cluster API defaults it to 1).
func (c MachinePoolFields) Replicas() Field[int64] { return fieldAt[int64](pathSpecReplicas) }

// FailureDomains is spec.failureDomains, the failure domains the pool's instances may be placed in.
func (c MachinePoolFields) FailureDomains() Field[[]string] {
	return fieldAt[[]string](pathSpecFailureDomains)
}

// Version is spec.template.spec.version, the Kubernetes version of the instances.
func (c MachinePoolFields) Version() Field[string] {
	return fieldAt[string](pathSpecTemplateSpecVersion)
}

// BootstrapDataSecretName is spec.template.spec.bootstrap.dataSecretName, set once the bootstrap data exists.
func (c MachinePoolFields) BootstrapDataSecretName() Field[string] {
	return fieldAt[string](pathSpecTemplateSpecBootstrapDataSecretRef)
}

// InfrastructureRef is spec.template.spec.infrastructureRef, the InfraMachinePool.
func (c MachinePoolFields) InfrastructureRef() Field[map[string]any] {
	return fieldAt[map[string]any](pathSpecTemplateSpecInfrastructureRef)
}
