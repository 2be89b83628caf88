// Package contract is the Cluster API provider contract as data. It holds the contract versions, typed field accessors
// on unstructured objects, contract-version discovery, the labels, annotations and bootstrap Secret keys of the
// contract, and embeddable API types. It does not import sigs.k8s.io/cluster-api: it reads and writes objects at the
// paths the contract names, the way Cluster API itself reads providers, so it works whatever Cluster API version a
// provider pins.
//
// This is the package a provider's manager imports. The checkers of the contract (Go types, CRDs, live objects,
// clusterctl release files) are in package github.com/capkit/capkit/contract/lint, for tests, CI and the
// "capkit check" command, so that a manager does not link them.
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
// same code serves both (Example_accessors):
//
//	ready, err := contract.InfraCluster(v).Provisioned().Get(cluster) // status.ready or status.initialization.provisioned
//	fmt.Println(ready, err)
//	err = contract.InfraMachine(v).ProviderID().Set(machine, "mem://"+id)
//	fmt.Println(err)
//	domains, err := contract.InfraCluster(v).FailureDomains().Get(cluster) // always a list sorted by name
//	fmt.Println(domains[0].Name, domains[1].Name, err)
//
// InfraCluster, InfraMachine and BootstrapConfig cover the provider objects; Cluster and Machine the core
// objects a provider reads (their version comes from APIVersionOf). FailureDomainsField converts between the
// v1beta1 map and the v1beta2 list.
//
// # Discovery
//
// A provider CRD declares the contracts it implements with labels "cluster.x-k8s.io/<contract>:
// <apiVersion>[_<apiVersion>…]", e.g. "cluster.x-k8s.io/v1beta2: v1beta2". VersionFromLabels and
// VersionOf return the newest contract and the newest API version implementing it, and fail with an
// error naming the label when a label names an API version the CRD does not serve. DiscoverContractVersion
// does the same through a controller-runtime client, given the group and kind; ErrNoContractLabel and
// ErrCRDNotFound tell the common mistakes apart.
//
// # Labels, annotations and the bootstrap Secret
//
// The constants name what the contract puts on objects: ClusterNameLabel, ControlPlaneLabel, PausedAnnotation,
// ManagedByAnnotation, ProviderLabel and the contract label prefix; and the keys of the bootstrap data Secret,
// BootstrapDataKey ("value") and BootstrapFormatKey ("format", FormatCloudConfig or FormatIgnition).
//
// # clusterctl move
//
// clusterctl move takes only the objects linked by ownerReferences to a Cluster, or labelled for the move. A
// provider labels the objects it creates that no Cluster owns, before it creates them: MarkMoveHierarchy for a root
// whose owned objects must follow it (an identity and its credentials Secret), MarkForMove for a single object
// (a configuration Secret). A cluster-scoped kind can never be owned by a namespaced Cluster: label its CRD with
// MoveHierarchyLabel or MoveLabel (clusterctl.CheckFiles reports a cluster-scoped CRD without either). BlockMove and
// UnblockMove set and remove BlockMoveAnnotation, which holds a move back while work in the cloud drains.
//
// # Embedding the types
//
// The types in types.go have the v1beta2 JSON shapes and the kubebuilder validation markers, and deep-copy
// functions, so a provider embeds them instead of writing them again (Example_embedding):
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
// An InfraMachineTemplate that supports Cluster API's autoscaling from zero embeds MachineTemplateCapacity
// (status.capacity and status.nodeInfo) as its status and implements CapacityAccessor over it; package
// reconcile/capacity keeps it up to date:
//
//	// +optional
//	Status contract.MachineTemplateCapacity `json:"status,omitempty,omitzero"`
//
// # Checkers
//
// Package contract/lint checks a provider against the same field paths: lint.CheckType for Go API types in a
// unit test, lint.CheckCRD for CRDs, lint.CheckInfraCluster, lint.CheckInfraMachine, lint.CheckBootstrapConfig
// and lint.CheckBootstrapSecret for live objects; package release/clusterctl checks clusterctl release files with
// clusterctl.CheckFiles. The table of contract fields, lint.Rules, is tested against the accessors here.
package contract
