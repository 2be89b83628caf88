package providertest

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/scope"
)

// DefaultOwnershipKey is the ownership key of a ScopeState that names none (and has NoOwnershipKey false).
const DefaultOwnershipKey = "providertest-ownership-key"

// ScopeState is what a mocked scope holds: the facts its getters return and the fields its setters write.
// A ServiceCase gives the starting state; the harness applies defaults (see each field), programs the mock's
// getters to return the current state and its setters to change it, and compares the state after the call
// with Outcome.State.
type ScopeState struct {
	// Name and Namespace of the infra object; default "test" and "default".
	Name, Namespace string
	// ClusterName is the owning Cluster's name; default "test-cluster".
	ClusterName string
	// Kind is the infra object's kind; default "InfraCluster" or "InfraMachine".
	Kind string
	// ContractVersion is the contract version in use; default contract.V1Beta2.
	ContractVersion contract.Version
	// Object is the infra object (e.g. *MemMachine) for services that read its spec; default an
	// unstructured object of Kind. The harness works on a deep copy, so cases can share objects.
	Object client.Object
	// Cluster is the owning Cluster; default one built with NewCluster from the fields below.
	Cluster *unstructured.Unstructured
	// Machine is the owning Machine of an InfraMachine; default one built with NewMachine from the fields below.
	Machine *unstructured.Unstructured

	// OwnershipKey is the persisted ownership key; DefaultOwnershipKey when empty, unless NoOwnershipKey.
	OwnershipKey string
	// NoOwnershipKey makes OwnershipKey fail with scope.ErrOwnershipKeyNotPersisted.
	NoOwnershipKey bool
	// ResourceIDs are the tracked cloud IDs (resource key → ID).
	ResourceIDs map[string]string
	// Conditions are the infra object's conditions, read and written through Conditions().
	Conditions []metav1.Condition
	// SummaryConditions are the condition types given to SetSummaryConditions.
	SummaryConditions []string

	// Paused, ClusterInfrastructureProvisioned and ClusterControlPlaneEndpoint are facts about the Cluster.
	Paused                           bool
	ClusterInfrastructureProvisioned bool
	ClusterControlPlaneEndpoint      contract.APIEndpoint

	// Provisioned is the infra object's provisioned flag.
	Provisioned bool
	// ControlPlaneEndpoint is the InfraCluster's spec.controlPlaneEndpoint.
	ControlPlaneEndpoint contract.APIEndpoint
	// FailureDomains is the InfraCluster's status.failureDomains.
	FailureDomains []contract.FailureDomain

	// ProviderID is the InfraMachine's spec.providerID.
	ProviderID string
	// Addresses is the InfraMachine's status.addresses.
	Addresses []contract.MachineAddress
	// FailureDomain is the InfraMachine's status.failureDomain.
	FailureDomain string
	// ControlPlane, KubernetesVersion and MachineFailureDomain are facts about the Machine.
	ControlPlane         bool
	KubernetesVersion    string
	MachineFailureDomain string
	// BootstrapDataSecretName is the Machine's spec.bootstrap.dataSecretName; empty makes BootstrapData fail
	// with scope.ErrBootstrapDataNotReady.
	BootstrapDataSecretName string
	// BootstrapData and BootstrapFormat are what BootstrapData returns (format default cloud-config). The
	// harness fails a case whose error, result message or conditions contain BootstrapData.
	BootstrapData   []byte
	BootstrapFormat scope.BootstrapFormat
}

// withDefaults returns a deep copy of s with the defaults applied, for an InfraMachine when machine is true.
func (s ScopeState) withDefaults(machine bool) ScopeState {
	s = s.DeepCopy()
	def := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	def(&s.Name, "test")
	def(&s.Namespace, "default")
	def(&s.ClusterName, "test-cluster")
	def(&s.Kind, map[bool]string{false: "InfraCluster", true: "InfraMachine"}[machine])
	if s.ContractVersion == "" {
		s.ContractVersion = contract.V1Beta2
	}
	if s.OwnershipKey == "" && !s.NoOwnershipKey {
		s.OwnershipKey = DefaultOwnershipKey
	}
	if s.ResourceIDs == nil {
		s.ResourceIDs = map[string]string{}
	}
	if s.BootstrapFormat == "" && machine {
		s.BootstrapFormat = scope.BootstrapFormatCloudConfig
	}
	if s.Object == nil {
		u := newObject(infraGVK(s.ContractVersion, s.Kind), s.Namespace, s.Name, map[string]string{contract.ClusterNameLabel: s.ClusterName}, nil)
		s.Object = u
	}
	if s.Cluster == nil {
		b := NewCluster(s.Namespace, s.ClusterName)
		if s.Paused {
			b.Paused()
		}
		if s.ClusterInfrastructureProvisioned {
			b.InfrastructureProvisioned()
		}
		if !s.ClusterControlPlaneEndpoint.IsZero() {
			b.WithControlPlaneEndpoint(s.ClusterControlPlaneEndpoint.Host, s.ClusterControlPlaneEndpoint.Port)
		}
		s.Cluster = b.Build()
	}
	if s.Machine == nil && machine {
		b := NewMachine(s.Namespace, s.Name, s.ClusterName).WithBootstrapSecret(s.BootstrapDataSecretName).
			WithVersion(s.KubernetesVersion).WithFailureDomain(s.MachineFailureDomain)
		if s.ControlPlane {
			b.ControlPlane()
		}
		s.Machine = b.Build()
	}
	return s
}

// DeepCopy returns a copy of s that shares nothing with it.
func (s ScopeState) DeepCopy() ScopeState {
	c := s
	if s.Object != nil {
		c.Object = s.Object.DeepCopyObject().(client.Object)
	}
	if s.Cluster != nil {
		c.Cluster = s.Cluster.DeepCopy()
	}
	if s.Machine != nil {
		c.Machine = s.Machine.DeepCopy()
	}
	c.ResourceIDs = maps.Clone(s.ResourceIDs)
	c.Conditions = slices.Clone(s.Conditions)
	c.SummaryConditions = slices.Clone(s.SummaryConditions)
	c.FailureDomains = make([]contract.FailureDomain, len(s.FailureDomains))
	for i, d := range s.FailureDomains {
		c.FailureDomains[i] = *d.DeepCopy()
	}
	if s.FailureDomains == nil {
		c.FailureDomains = nil
	}
	c.Addresses = slices.Clone(s.Addresses)
	c.BootstrapData = slices.Clone(s.BootstrapData)
	return c
}

// normalized returns s with condition times cleared, for comparisons.
func (s ScopeState) normalized() ScopeState {
	s.Conditions = slices.Clone(s.Conditions)
	for i := range s.Conditions {
		s.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	return s
}

// infraGVK is the GVK of the default infra object of a ScopeState.
func infraGVK(v contract.Version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: string(v), Kind: kind}
}
