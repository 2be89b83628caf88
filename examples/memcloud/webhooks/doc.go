// Package webhooks holds the admission webhooks of memcloud's API (package api/v1beta2). They default and validate
// MemCluster, MemMachine, MemClusterTemplate and MemMachineTemplate, and are built on the typed admission.Defaulter and
// admission.Validator of controller-runtime.
//
// The CRD schemas already default and check what can be said per field (network CIDR, load balancer port,
// image, flavor, patterns, enums). The webhooks add what needs more than one field or the old object:
//
//   - MemCluster: subnets derived from the network CIDR when none are given (DefaultSubnets); subnets inside
//     the network, not overlapping, with unique names and at least one of each role; a control plane
//     endpoint with both host and port; the network and the load balancer port never change, the control
//     plane endpoint never changes once set.
//   - MemMachine: a known flavor, a "memcloud://" provider ID and user tags outside memcloud's and capkit's own
//     keys; the spec never changes, except flavor and tags (v1beta2.InPlaceFields, changed on the running
//     instance) and providerID and failureDomain, which may each be set once.
//   - Templates: their spec is defaulted and validated as the spec of the objects made from them, a
//     MemMachineTemplate must not set providerID, and spec.template.spec never changes.
//
// Errors are the Invalid API errors the API server returns to kubectl, one line per field, for example
//
//	MemMachine.infrastructure.memcloud.capkit.io "m-0" is invalid: spec.image: Forbidden: field is immutable
//
// The pure functions (DefaultMemClusterSpec, ValidateMemClusterSpec, ValidateMemClusterSpecUpdate and their
// MemMachine counterparts) hold all the logic, so they can be table-tested without an API server; the webhook
// types only call them with the right field path.
//
// # Wiring
//
// SetupWithManager(mgr) registers the webhooks with a manager whose scheme holds the v1beta2 types; the
// provider's cmd/manager calls it after the controllers' SetupWithManager and returns its error.
//
// The +kubebuilder:webhook markers in setup.go generate config/webhook/manifests.yaml (`make generate`). A
// test starts them against a real API server with testenv.WithWebhooks; see envtest_test.go.
package webhooks
