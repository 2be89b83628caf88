// Package services holds the steps of the quux provider's reconcilers: each is a reconcile.Service over a
// capkit scope, and each cloud resource is created, adopted and deleted with reconcile.Ensure and
// reconcile.EnsureDeleted, so that a crash, a conflict or clusterctl move never creates a resource twice or
// leaks one.
//
//   - LoadBalancer (QuuxCluster): the API server load balancer; sets spec.controlPlaneEndpoint and the
//     provisioned flag.
//   - Instance (QuuxMachine): the machine's instance, created with the Machine's bootstrap data; sets
//     spec.providerID, status.addresses and the provisioned flag once the instance runs.
//
// The services depend on the narrow interfaces of package cloud, so that the tests run them on cloud.Memory
// (servicetest and ensuretest of capkit's providertest).
package services
