// Package webhooks holds the admission webhooks of vspherecloud's API (package api/v1beta2), built on capkit's
// admission.Webhook (package contract/admission), which implements controller-runtime's typed admission.Validator.
//
// The CRD schemas already check what can be said per field (lengths, the thumbprint's pattern, minimum CPUs, memory
// and disk). The webhooks add what needs a parser, the object's name, or the old object:
//
//   - VSphereCluster: spec.server must be a vCenter the controllers can reach, as cloud.ParseURL reads it (a host
//     name, host:port or https URL) and hold no credentials; the control plane endpoint has both host and port or
//     neither (admission.ValidateEndpoint). spec.server and spec.datacenter never change (the cluster's VMs live
//     there), spec.controlPlaneEndpoint never changes once set (admission.ValidateEndpointUpdate); spec.thumbprint
//     and spec.credentialsSecretRef may change, for a new certificate or new credentials.
//   - VSphereMachine: its name becomes the VM's, so it has at most 80 characters (services.MaxVMNameLength), checked
//     on create (admission.Webhook's ValidateName); spec.providerID, when set, is "vsphere://<BIOS UUID>". Nothing but
//     providerID, set once (admission.ValidateSetOnce), changes after creation.
//   - VSphereMachineTemplate: spec.template.spec is checked as a VSphereMachine's spec and must not set providerID.
//     The spec never changes, except in the server-side-apply dry-runs of Cluster API's topology controller
//     (admission.ValidateImmutable), which ClusterClass rollouts need to pass.
//
// There is no defaulting webhook: an unset numCPUs, memoryMiB or diskGiB keeps the VM template's, which only the
// vCenter knows.
//
// Errors are the Invalid API errors the API server returns to kubectl, one line per field, naming the field and
// the values, for example
//
//	VSphereCluster.infrastructure.vspherecloud.capkit.io "c1" is invalid: spec.datacenter: Invalid value: "DC1": field is immutable (was "DC0")
//
// The pure functions (ValidateVSphereClusterSpec, ValidateVSphereClusterSpecUpdate, ValidateServer and their
// VSphereMachine counterparts) hold the logic, so they are table-tested without an API server; the webhook values
// only hand them to admission.Webhook with the right field path.
//
// # Wiring
//
// SetupWithManager(mgr) registers the webhooks with a manager whose scheme holds the v1beta2 types; cmd/manager
// calls it after the controllers' SetupWithManager. The +kubebuilder:webhook markers in setup.go generate
// config/webhook/manifests.yaml (make generate), which hack/components puts in config/infrastructure-components.yaml
// and testenv.Provider installs in every envtest API server of vspherecloud's tests; envtest_test.go checks that the
// API server calls them.
package webhooks
