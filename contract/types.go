package contract

import (
	"math"

	corev1 "k8s.io/api/core/v1"
)

// The types in this file have the JSON shapes of the v1beta2 contract. A provider embeds them in its own API
// types so that its CRDs carry the right fields, types and validation; see the package example.

// APIEndpoint is the address of a cluster's Kubernetes API server (InfraCluster spec.controlPlaneEndpoint).
// +kubebuilder:object:generate=true
type APIEndpoint struct {
	// host is the hostname or IP on which the API server is serving.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Host string `json:"host,omitempty"`

	// port is the port on which the API server is serving.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// IsZero reports whether neither host nor port is set.
func (e APIEndpoint) IsZero() bool { return e.Host == "" && e.Port == 0 }

// IsValid reports whether both host and port are set.
func (e APIEndpoint) IsValid() bool { return e.Host != "" && e.Port > 0 }

// fromJSONMap fills e from a JSON object with a string host and an integer port that fits an int32, the
// shape the API server returns; it reports false for any other value of either key.
func (e *APIEndpoint) fromJSONMap(m map[string]any) bool {
	for k, v := range m {
		switch k {
		case "host":
			h, ok := v.(string)
			if !ok {
				return false
			}
			e.Host = h
		case "port":
			p, ok := v.(int64)
			if !ok || p < math.MinInt32 || p > math.MaxInt32 {
				return false
			}
			e.Port = int32(p)
		}
	}
	return true
}

// FailureDomain is one failure domain an InfraCluster offers (v1beta2: an item of status.failureDomains).
// +kubebuilder:object:generate=true
type FailureDomain struct {
	// name is the name of the failure domain.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`

	// controlPlane determines if this failure domain is suitable for use by control plane machines.
	// +optional
	ControlPlane *bool `json:"controlPlane,omitempty"`

	// attributes is a free form map of attributes an infrastructure provider might use or require.
	// +optional
	Attributes map[string]string `json:"attributes,omitempty"`
}

// MachineAddressType is the kind of a machine address.
// +kubebuilder:validation:Enum=Hostname;ExternalIP;InternalIP;ExternalDNS;InternalDNS
type MachineAddressType string

// Machine address types, as Cluster API and Kubernetes Nodes define them.
const (
	MachineHostName    MachineAddressType = "Hostname"
	MachineExternalIP  MachineAddressType = "ExternalIP"
	MachineInternalIP  MachineAddressType = "InternalIP"
	MachineExternalDNS MachineAddressType = "ExternalDNS"
	MachineInternalDNS MachineAddressType = "InternalDNS"
)

// MachineAddress is one address of a machine (InfraMachine status.addresses).
// +kubebuilder:object:generate=true
type MachineAddress struct {
	// type is the machine address type, one of Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.
	// +required
	Type MachineAddressType `json:"type"`

	// address is the machine address.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Address string `json:"address"`
}

// InfraClusterInitialization is the v1beta2 InfraCluster status.initialization.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:object:generate=true
type InfraClusterInitialization struct {
	// provisioned is true when the infrastructure provider reports that the cluster's infrastructure is fully
	// provisioned. Cluster API reads it to orchestrate the cluster's initial provisioning.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// InfraMachineInitialization is the v1beta2 InfraMachine status.initialization.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:object:generate=true
type InfraMachineInitialization struct {
	// provisioned is true when the infrastructure provider reports that the machine's infrastructure is fully
	// provisioned. Cluster API reads it to orchestrate the machine's initial provisioning.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// BootstrapConfigInitialization is the v1beta2 bootstrap config status.initialization.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:object:generate=true
type BootstrapConfigInitialization struct {
	// dataSecretCreated is true when the bootstrap provider reports that the Machine's bootstrap secret is created.
	// +optional
	DataSecretCreated *bool `json:"dataSecretCreated,omitempty"`
}

// TemplateObjectMeta is the metadata an InfraClusterTemplate or InfraMachineTemplate gives the objects made
// from it (spec.template.metadata): labels and annotations only. Embed it in a template's resource type as
// a field `metadata` (omitempty, omitzero) of this type.
// +kubebuilder:object:generate=true
type TemplateObjectMeta struct {
	// labels are added to the objects made from the template.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// annotations are added to the objects made from the template.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Architecture is the CPU architecture of the nodes a machine template makes: amd64, arm64, s390x or ppc64le.
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

// MachineTemplateCapacity is the status of an InfraMachineTemplate that supports autoscaling from zero
// (Cluster API's opt-in autoscaling from zero): status.capacity and status.nodeInfo. Embed it as the
// template's status, or copy its two fields; implement CapacityAccessor over it, and package
// reconcile/capacity keeps it up to date.
// +kubebuilder:object:generate=true
type MachineTemplateCapacity struct {
	// capacity is what a machine made from the template offers: cpu, memory, pods, GPUs, as resource
	// quantities. The cluster autoscaler reads it to scale a MachineDeployment up from zero.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`

	// nodeInfo is the architecture and operating system of the machines.
	// +optional
	NodeInfo NodeInfo `json:"nodeInfo,omitempty,omitzero"`
}
