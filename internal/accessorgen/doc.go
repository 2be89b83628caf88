// Package accessorgen writes the contract accessor methods of a provider's API types, so that a provider writes none by
// hand. It is what "capkit generate accessors" runs, the way controller-gen writes DeepCopy.
//
// Go promotes methods only from fields embedded in the object itself, and a Kubernetes object's spec and
// status are named fields, so no embeddable type can give an object these methods; a generator can.
//
// Generate reads the Go files of one package folder (each bounded in size before it is parsed, and refused
// unopened unless it is a regular file: a named pipe called *.go would block the read) and finds its
// root object types: structs marked +kubebuilder:object:root=true whose names do not end in List. For each,
// it follows the spec and status fields to struct types of the same package (inline embedded structs
// included) and, for every contract field present there by JSON name, emits the methods of the interface
// that reads and writes it:
//
//	status.conditions     []metav1.Condition               GetConditions, SetConditions (conditions.Setter)
//	status.initialization contract.Infra*Initialization     IsProvisioned, SetProvisioned (a pointer is allocated on set)
//	spec.controlPlaneEndpoint contract.APIEndpoint          GetControlPlaneEndpoint, SetControlPlaneEndpoint
//	status.failureDomains []contract.FailureDomain          GetFailureDomains, SetFailureDomains
//	spec.providerID       string                           GetProviderID, SetProviderID
//	status.addresses      []contract.MachineAddress         GetAddresses, SetAddresses
//	status.failureDomain  string                           GetStatusFailureDomain, SetStatusFailureDomain
//	status.resources      map[string]string                GetResourceIDs, SetResourceIDs (scope.ResourceIDsAccessor)
//	spec.providerIDList   []string                         GetProviderIDList, SetProviderIDList
//	status.replicas       int32                            GetStatusReplicas, SetStatusReplicas
//
// A method the package already declares for the type is not generated: a provider overrides one by writing
// it (a machine pool's SetProvisioned that also sets status.ready, for example), and when it writes both
// methods of a pair the field's type is not checked. A contract field of another type is an error that names
// the type and the field; so is one reached through a pointer. A type marked +capkit:accessors=false is
// skipped. The output is gofmt'd, deterministic, and asserts at compile time that each type implements the
// contract interfaces whose methods it generated.
//
// The walk from a spec or status through its embedded structs is breadth-first, as encoding/json's: each
// struct type is expanded once, at the shallowest depth that reaches it, and the paths that reach it there are
// counted (a field that two paths reach at its depth is ambiguous, an error). Its time and memory are linear
// in the package's declarations, however the types embed one another.
package accessorgen
