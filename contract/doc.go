// Package contract is the Cluster API provider contract as data: contract versions, typed field accessors on
// unstructured objects, embeddable API types, contract-version discovery and checkers. It does not import
// sigs.k8s.io/cluster-api: it reads and writes objects at the paths the contract names, the way Cluster API
// itself reads providers, so it works whatever Cluster API version a provider pins.
//
// # Contract versions
//
// A contract version (Version) says where Cluster API looks for a provider's fields. Two are supported,
// newest first in Versions:
//
//   - V1Beta2 (Cluster API v1.11 and later): readiness in status.initialization.provisioned (bootstrap:
//     status.initialization.dataSecretCreated), failure domains as a list of FailureDomain, metav1.Conditions
//     in status.conditions.
//   - V1Beta1: readiness in status.ready, failure domains as a map keyed by name, metav1.Conditions in
//     status.v1beta2.conditions.
//
// # Field accessors
//
// Field[T] reads and writes one field of an unstructured object with a type: Get returns ErrFieldNotFound when
// the field is absent and ErrFieldType when it has another shape (check with errors.Is); Set creates parent
// objects and writes JSON-compatible values. The role accessors pick the path for a contract version, so the
// same code serves both:
//
//	ready, err := contract.InfraCluster(v).Provisioned().Get(u) // status.ready or status.initialization.provisioned
//	err = contract.InfraMachine(v).ProviderID().Set(u, "mem://"+id)
//	domains, err := contract.InfraCluster(v).FailureDomains().Get(u) // always a list sorted by name
//
// InfraCluster, InfraMachine and BootstrapConfig cover the provider objects; Cluster and Machine the core
// objects a provider reads (their version comes from APIVersionOf). FailureDomainsField converts between the
// v1beta1 map and the v1beta2 list.
//
// # Discovery
//
// A provider CRD declares the contracts it implements with labels "cluster.x-k8s.io/<contract>:
// <apiVersion>[_<apiVersion>…]", e.g. "cluster.x-k8s.io/v1beta2: v1beta2". ContractVersionFromLabels and
// ContractVersionOf return the newest contract and the newest API version implementing it, and fail with an
// error naming the label when a label names an API version the CRD does not serve. DiscoverContractVersion
// does the same through a controller-runtime client, given the group and kind; ErrNoContractLabel and
// ErrCRDNotFound tell the common mistakes apart.
//
// # Embedding the types
//
// The types in types.go have the v1beta2 JSON shapes and the kubebuilder validation markers, and deep-copy
// functions, so a provider embeds them instead of writing them again:
//
//	type MemClusterSpec struct {
//		// +optional
//		ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
//	}
//
//	type MemClusterStatus struct {
//		// +optional
//		Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`
//		// +optional
//		// +listType=map
//		// +listMapKey=name
//		// +kubebuilder:validation:MaxItems=100
//		FailureDomains []contract.FailureDomain `json:"failureDomains,omitempty"`
//		// +optional
//		// +listType=map
//		// +listMapKey=type
//		// +kubebuilder:validation:MaxItems=32
//		Conditions []metav1.Condition `json:"conditions,omitempty"`
//	}
//
// Keep omitzero (or a pointer) on Initialization: its CRD schema asks for at least one property, so an empty
// {} would be rejected. Label the CRD with "cluster.x-k8s.io/v1beta2: <your API version>" (e.g. through
// config/crd/kustomization.yaml).
//
// # Checkers
//
// Every checker returns Violations: a list of Violation{Rule, Object, Path, Message}, with stable rule ids,
// one-line messages that say what to do, and never any Secret data. An empty list means the subject follows
// the contract; Violations.Err turns a list into an error.
//
//   - CheckType checks a Go API type before any CRD is generated, in a plain unit test:
//     require.Empty(t, contract.CheckType(&MemCluster{}, contract.KindInfraCluster, contract.V1Beta2)).
//     It finds a type still in the v1beta1 shape under a v1beta2 label and says so.
//   - CheckInfraCluster, CheckInfraMachine and CheckBootstrapConfig check live objects: shapes for the
//     contract version, endpoint and providerID set when provisioned, addresses and conditions valid.
//   - CheckBootstrapSecret checks a bootstrap data Secret against its bootstrap config.
//   - CheckCRD checks a CustomResourceDefinition, and CheckFiles the clusterctl release files
//     (metadata.yaml, *-components.yaml, cluster-template*.yaml).
//
// All checkers share one table of contract fields, Rules(kind, version), so they agree with each other and
// with the accessors.
package contract
