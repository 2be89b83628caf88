package templates

import (
	corev1 "k8s.io/api/core/v1"
)

// Architecture is the CPU architecture of the nodes a template makes: amd64, arm64, s390x or ppc64le.
// +kubebuilder:validation:Enum=amd64;arm64;s390x;ppc64le
type Architecture string

// Architectures Cluster API's autoscaling-from-zero contract names.
const (
	ArchitectureAmd64   Architecture = "amd64"
	ArchitectureArm64   Architecture = "arm64"
	ArchitectureS390x   Architecture = "s390x"
	ArchitecturePpc64le Architecture = "ppc64le"
)

// NodeInfo is an InfraMachineTemplate's status.nodeInfo: the architecture and operating system of the nodes it
// makes, which the cluster autoscaler reads to scale a MachineDeployment up from zero.
// +kubebuilder:object:generate=true
// +kubebuilder:validation:MinProperties=1
type NodeInfo struct {
	// architecture is the CPU architecture of the nodes: amd64, arm64, s390x or ppc64le.
	// +optional
	Architecture Architecture `json:"architecture,omitempty"`

	// operatingSystem is the operating system of the nodes, e.g. linux or windows.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	OperatingSystem string `json:"operatingSystem,omitempty"`
}

// Capacity is the status of an InfraMachineTemplate that supports autoscaling from zero (Cluster API's
// opt-in autoscaling from zero): embed it as the template's status, or copy its two fields.
// +kubebuilder:object:generate=true
type Capacity struct {
	// capacity is what a machine made from the template offers: cpu, memory, pods, GPUs, as resource
	// quantities. The cluster autoscaler reads it to scale a MachineDeployment up from zero.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`

	// nodeInfo is the architecture and operating system of the machines.
	// +optional
	NodeInfo NodeInfo `json:"nodeInfo,omitempty,omitzero"`
}

// CapacityAccessor is the status.capacity and status.nodeInfo of a provider's InfraMachineTemplate type.
type CapacityAccessor interface {
	// GetCapacity returns status.capacity and status.nodeInfo.
	GetCapacity() Capacity
	// SetCapacity sets them.
	SetCapacity(c Capacity)
}
