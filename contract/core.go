package contract

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Labels and annotations of the core Cluster API objects that providers read.
const (
	// GroupName is the API group of the core Cluster API types.
	GroupName = "cluster.x-k8s.io"
	// ClusterNameLabel names the Cluster an object belongs to.
	ClusterNameLabel = "cluster.x-k8s.io/cluster-name"
	// ControlPlaneLabel is present on control-plane Machines.
	ControlPlaneLabel = "cluster.x-k8s.io/control-plane"
	// PausedAnnotation pauses reconciliation of the object that carries it.
	PausedAnnotation = "cluster.x-k8s.io/paused"
	// WatchFilterLabel selects the objects a controller started with a watch filter reconciles.
	WatchFilterLabel = "cluster.x-k8s.io/watch-filter"
	// ManagedByAnnotation marks an InfraCluster managed outside Cluster API; providers must not reconcile it.
	ManagedByAnnotation = "cluster.x-k8s.io/managed-by"
	// ProviderLabel names the provider in clusterctl components.
	ProviderLabel = "cluster.x-k8s.io/provider"
	// VersionLabelPrefix starts the CRD labels that declare contract versions, e.g. cluster.x-k8s.io/v1beta2.
	VersionLabelPrefix = GroupName + "/"
)

// ClusterFields are the fields of the core Cluster that providers read, for one core API version
// (v1beta1 or v1beta2 of cluster.x-k8s.io; the core API version matches the contract version it implements).
type ClusterFields struct{ version Version }

// Cluster returns the core Cluster fields of API version v.
func Cluster(v Version) ClusterFields { return ClusterFields{version: v} }

// Paused is spec.paused.
func (c ClusterFields) Paused() Field[bool] { return fieldAt[bool](pathSpecPaused) }

// ControlPlaneEndpoint is spec.controlPlaneEndpoint.
func (c ClusterFields) ControlPlaneEndpoint() Field[APIEndpoint] {
	return fieldAt[APIEndpoint](pathSpecControlPlaneEndpoint)
}

// InfrastructureProvisioned is status.infrastructureReady (v1beta1) or
// status.initialization.infrastructureProvisioned (v1beta2).
func (c ClusterFields) InfrastructureProvisioned() Field[bool] {
	return pick(c.version, fieldAt[bool](pathStatusInfrastructureReady),
		fieldAt[bool](pathStatusInitializationInfrastructureProvisioned))
}

// InfrastructureRef is spec.infrastructureRef: apiVersion/kind/name (v1beta1) or apiGroup/kind/name (v1beta2).
func (c ClusterFields) InfrastructureRef() Field[map[string]any] {
	return fieldAt[map[string]any](pathSpecInfrastructureRef)
}

// MachineFields are the fields of the core Machine that providers read, for one core API version.
type MachineFields struct{ version Version }

// Machine returns the core Machine fields of API version v.
func Machine(v Version) MachineFields { return MachineFields{version: v} }

// ClusterName is spec.clusterName.
func (c MachineFields) ClusterName() Field[string] { return fieldAt[string](pathSpecClusterName) }

// BootstrapDataSecretName is spec.bootstrap.dataSecretName.
func (c MachineFields) BootstrapDataSecretName() Field[string] {
	return fieldAt[string](pathSpecBootstrapDataSecretName)
}

// Version is spec.version, the Kubernetes version of the machine.
func (c MachineFields) Version() Field[string] { return fieldAt[string](pathSpecVersion) }

// FailureDomain is spec.failureDomain.
func (c MachineFields) FailureDomain() Field[string] {
	return fieldAt[string](pathSpecFailureDomain)
}

// ProviderID is spec.providerID, copied by Cluster API from the InfraMachine.
func (c MachineFields) ProviderID() Field[string] { return fieldAt[string](pathSpecProviderID) }

// InfrastructureRef is spec.infrastructureRef.
func (c MachineFields) InfrastructureRef() Field[map[string]any] {
	return fieldAt[map[string]any](pathSpecInfrastructureRef)
}

// BootstrapDataSecretCreated is status.bootstrapReady (v1beta1) or
// status.initialization.bootstrapDataSecretCreated (v1beta2).
func (c MachineFields) BootstrapDataSecretCreated() Field[bool] {
	return pick(c.version, fieldAt[bool](pathStatusBootstrapReady),
		fieldAt[bool](pathStatusInitializationBootstrapDataSecretCreated))
}

// InfrastructureProvisioned is status.infrastructureReady (v1beta1) or
// status.initialization.infrastructureProvisioned (v1beta2).
func (c MachineFields) InfrastructureProvisioned() Field[bool] {
	return pick(c.version, fieldAt[bool](pathStatusInfrastructureReady),
		fieldAt[bool](pathStatusInitializationInfrastructureProvisioned))
}

// IsControlPlaneMachine reports whether a Machine carries the control-plane label.
func IsControlPlaneMachine(machine *unstructured.Unstructured) bool {
	if machine == nil {
		return false
	}
	_, ok := label(machine, ControlPlaneLabel)
	return ok
}

// ClusterNameOf returns the cluster-name label of obj, or "".
func ClusterNameOf(obj *unstructured.Unstructured) string {
	if obj == nil {
		return ""
	}
	v, _ := label(obj, ClusterNameLabel)
	return v
}

// label reads one label without copying the object's label map, as GetLabels does.
func label(obj *unstructured.Unstructured, key string) (string, bool) {
	v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "metadata", "labels", key)
	s, ok := v.(string)
	return s, found && ok
}

// APIVersionOf returns the core Cluster API version (v1beta1 or v1beta2) of a core object from its apiVersion.
func APIVersionOf(obj *unstructured.Unstructured) (Version, error) {
	if obj == nil {
		return "", fmt.Errorf("cannot get the API version of a nil object: %w", ErrUnknownVersion)
	}
	apiVersion := obj.GetAPIVersion()
	group, version, found := strings.Cut(apiVersion, "/")
	if !found {
		group, version = "", apiVersion
	}
	if group != GroupName {
		return "", fmt.Errorf("cannot get the core API version of %q: group %q is not %q: %w", apiVersion, group, GroupName, ErrUnknownVersion)
	}
	return parseVersion(version)
}
