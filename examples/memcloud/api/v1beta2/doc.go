// Package v1beta2 is the API of memcloud, capkit's example infrastructure provider: MemCluster and MemMachine
// (the InfraCluster and InfraMachine of Cluster API contract v1beta2) and their templates, in the API group
// infrastructure.memcloud.capkit.io.
//
// The types embed capkit's contract types, so that their JSON shape is the one Cluster API reads:
//
//   - MemCluster.Spec.ControlPlaneEndpoint is a contract.APIEndpoint (spec.controlPlaneEndpoint);
//   - MemCluster.Status.Initialization and MemMachine.Status.Initialization are the v1beta2
//     status.initialization.provisioned;
//   - MemCluster.Status.FailureDomains is a list of contract.FailureDomain, MemMachine.Status.Addresses a list
//     of contract.MachineAddress;
//   - both have status.conditions of type []metav1.Condition and implement the Getter and Setter of capkit's
//     conditions package.
//
// Both kinds implement capkit's accessor interfaces with one-line methods over these fields
// (contract.ProvisionedAccessor, ControlPlaneEndpointAccessor and FailureDomainsAccessor for MemCluster;
// ProvisionedAccessor, ProviderIDAccessor, AddressesAccessor and StatusFailureDomainAccessor for MemMachine;
// scope.ResourceIDsAccessor for both), so that capkit's typed scopes read and write them without reflection
// and memcloud's services use the typed objects directly.
//
// Every CRD carries the label cluster.x-k8s.io/v1beta2=v1beta2 (from the +kubebuilder:metadata:labels marker
// on each type), which tells Cluster API that API version v1beta2 implements contract v1beta2. A unit test
// checks the Go types with lint.CheckType (package github.com/capkit/capkit/contract/lint), so that a field
// renamed or moved breaks the build, not a cluster.
//
// # Defaults and validation
//
// The CRD schemas default the simple fields (network CIDR 10.0.0.0/16, load balancer port 6443, image
// ubuntu-24.04, flavor medium) and check their syntax. The admission webhooks of package
// examples/memcloud/webhooks add what a schema cannot express: subnets derived from the network CIDR,
// subnets inside the network and not overlapping, the default ingress rule of the security group (the load
// balancer port from anywhere), rules with canonical CIDRs and no duplicates, and immutable fields. The
// security group's ingress rules are the only part of a MemCluster's infrastructure that may change after
// creation.
//
// # Resource IDs
//
// Status.Resources of both kinds is capkit's resource-ID map: one key per cloud resource the controller
// created (for example "network" → "net-1f2e3d4c"), written and checkpointed as soon as the cloud returns the
// ID, so that a crash between create and the end of reconcile never creates the resource a second time. As
// all status, it can be rebuilt from the ownership tags of the cloud resources after clusterctl move.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.memcloud.capkit.io
package v1beta2
