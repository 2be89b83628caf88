// Package v1beta1 is memcloud's older API version, as memcloud v0.1 shipped it under Cluster API contract v1beta1. It
// holds MemCluster, MemMachine and MemMachineTemplate in the API group infrastructure.memcloud.capkit.io. It is
// deprecated, served but not stored: the current release stores package v1beta2, the hub, and converts every object
// read or written as v1beta1 to and from it with the conversion webhook (ConvertTo and ConvertFrom).
//
// The kinds have the v1beta1 contract's shapes: spec.providerID a *string, status.ready instead of
// status.initialization.provisioned, failure domains as a map keyed by name (conversion.V1Beta1FailureDomain),
// conditions with a severity (conversion.V1Beta1Condition), and status.failureReason and status.failureMessage.
// The provider's own nested types (NetworkSpec, LoadBalancerSpec, SecurityGroupSpec, Flavor) are package
// v1beta2's, unchanged since v0.1.
//
// MemClusterIdentity, MemMachinePool and MemClusterTemplate did not exist in v0.1, nor did a MemCluster's
// spec.identityRef, a MemMachine's status.failureDomain or a MemMachineTemplate's status (capacity and node
// info): the conversions keep them, with everything else one version cannot hold, in the annotations
// conversion.StashAnnotation (spec) and conversion.StatusStashAnnotation (status) until the object comes back
// to v1beta2, so that nothing is lost either way. A write to the main resource cannot change the status through
// the status stash: memcloud's defaulting webhooks keep the stored status (admission.Webhook.KeepStatus).
//
// Every CRD of these kinds carries the label cluster.x-k8s.io/v1beta1=v1beta1 besides
// cluster.x-k8s.io/v1beta2=v1beta2, which tells Cluster API that API version v1beta1 implements contract v1beta1.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.memcloud.capkit.io
package v1beta1
