// Package webhooks holds the admission webhooks of podcloud's API (package api/v1beta2). They are built on the typed
// admission.Defaulter and admission.Validator of controller-runtime.
//
// The CRD schemas already default and check what can be said per field (namespace pattern, Service type
// enum, port range, lengths). The webhooks add what needs a pattern the schema does not have, or the old
// object:
//
//   - PodCluster: defaulting sets spec.controlPlaneService.type to ClusterIP and .port to 6443 when empty
//     (DefaultPodClusterSpec, which controllers can call too). Validation wants a control plane endpoint with
//     both host and port or neither; spec.namespace, spec.controlPlaneService.type and .port never change,
//     spec.controlPlaneEndpoint never changes once set.
//   - PodMachine: validation only. spec.image, when set, must be a container image reference,
//     spec.providerID, when set, a podcloud provider ID ("podcloud://namespace/name/uid"), and spec.resources
//     may hold only cpu and memory, each greater than zero (ValidateResources). The spec never changes, except
//     providerID, which may go from empty to a value.
//   - PodClusterTemplate: spec.template.spec is defaulted and checked as a PodCluster's spec.
//   - PodMachineTemplate: validation only. spec.template.spec is checked as a PodMachine's spec and must not
//     set providerID.
//
// The spec of a template never changes, except in the server-side-apply dry-runs of Cluster API's topology
// controller (capkit's admission.ValidateImmutable), which ClusterClass rollouts need to pass.
//
// Errors are the Invalid API errors the API server returns to kubectl, one line per field, naming the field
// and the values, for example
//
//	PodCluster.infrastructure.podcloud.capkit.io "demo" is invalid: spec.namespace: Invalid value: "b": field is immutable (was "a")
//
// The pure functions (DefaultPodClusterSpec, ValidatePodClusterSpec, ValidatePodClusterSpecUpdate and their
// PodMachine counterparts) hold the logic, so they can be table-tested without an API server; the webhook
// types only call them with the right field path.
//
// # Wiring
//
// SetupWithManager(mgr) registers the webhooks with a manager whose scheme holds the v1beta2 types; the
// provider's cmd/manager calls it after the controllers' SetupWithManager and returns its error.
//
// The +kubebuilder:webhook markers in setup.go generate config/webhook/manifests.yaml. envtest_test.go
// starts them against a real API server with testenv.WithWebhooks.
package webhooks
