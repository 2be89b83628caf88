// Package services holds the services of memcloud's example provider, one reconcile.Service per part of the
// infrastructure. They are written only against capkit's narrow typed scope interfaces
// (scope.ClusterScoper[*v1beta2.MemCluster], scope.MachineScoper[*v1beta2.MemMachine]) and ensure.Exists. A service
// reads and writes its MemCluster or MemMachine directly (s.InfraCluster().Spec.Network), without a type assertion, and
// plugs into capkit's reconcilers as a step without glue. Each is unit-tested on the state-backed fake scopes of
// scope/scopetest (through providertest/servicetest) and the in-memory cloud, without an API server.
//
// # Cluster steps
//
// A MemCluster is reconciled by four steps, in order (deleted in reverse order):
//
//   - Network: the network of spec.network.cidr (condition NetworkReady);
//   - Subnets: the subnets of spec.network.subnets (SubnetsReady);
//   - SecurityGroup: the cluster's security group, with the ingress rules of spec.securityGroup.ingressRules
//     and everything from inside the network (SecurityGroupReady). The rules are the one part of the
//     infrastructure that may change: rules changed in the spec, or out of band, are updated in place, and
//     the step reports conditions.ReasonDriftCorrected until the next reconcile finds them up to date;
//   - LoadBalancer: the API server load balancer; it sets spec.controlPlaneEndpoint to the load
//     balancer's host and port, copies spec.failureDomains to status.failureDomains and marks the
//     MemCluster provisioned (LoadBalancerReady).
//
// # Machine step
//
// A MemMachine has one step, Instance (InstanceReady): the instance is created with the Machine's bootstrap
// data as user data, in the control plane or worker subnet, with the cluster's security group; a control
// plane instance is registered with the load balancer. The step sets spec.providerID
// ("memcloud://<instance-id>"), status.addresses, status.instanceState and status.failureDomain, also while
// the instance boots, and the provisioned flag once it runs; while it is pending the step reports
// ReasonInstancePending and asks to be called again after the poll interval. Everything comes from the
// instance ensure.Exists returns: a steady-state reconcile reads the instance once (and the load balancer
// of a control plane machine) and nothing else.
//
// # Addresses from IPAM pools
//
// A MemMachine whose spec.addressesFromPools names Cluster API IPAM pools takes one address from each, for its
// device eth0, through an AddressClaimer (capkit's ipam.Claimer, WithAddressClaimer). Until its instance is
// recorded, the Instance step claims them (one IPAddressClaim per pool, owned by the MemMachine, with the
// Cluster's name) and returns Claim's Result, not done with conditions.ReasonWaitingForIPAddresses and the
// names of the claims until every claim is bound; then it creates the instance with the addresses as static
// IPs (cloud.InstanceSpec.StaticIPs), and status.addresses lists them as InternalIP after the private IP. Once
// the instance is recorded, the addresses are read from it: no claim is read in the steady state, nor after
// clusterctl move, when the claims have lost their status until the IPAM provider runs again. Delete deletes
// the instance first, then returns Unclaim's Result, not done with conditions.ReasonReleasingIPAddresses until
// the claims are gone (without the Cluster and without the garbage collector). Addresses that cannot be used,
// and pools without an AddressClaimer, are terminal with conditions.ReasonInvalidIPAddress; a claim of another
// object (ipam.ErrConflict) and an address another instance has (cloud.ErrAddressInUse) are retried with
// backoff.
//
// # In-place updates
//
// A MemMachine's flavor and tags (v1beta2.InPlaceFields) change on its running instance: the instance gets the
// user tags of spec.tags besides memcloud's own, and when the spec's flavor or tags differ from the instance's
// (the spec was edited, Cluster API wrote a new template's spec into it, or someone changed the tags out of
// band), the Instance step changes the tags at once, starts a resize (the instance restarts with the new
// flavor) and reports ReasonInstanceUpdating until the instance runs with the spec's flavor. The comparison is
// made on the instance Ensure observed, after Ensure: a steady-state reconcile still makes one read and no
// other call, and never reads the bootstrap data Secret (the Lazy spec is computed only for a create).
// UpdateInstanceInPlace makes the same changes for Cluster API's UpdateMachine hook, served by memcloud's
// in-place update extension (controllers.NewInPlaceExtension), and reports when they are done.
//
// # Cloud resources
//
// Resources adapts each memcloud kind to ensure.Resource, observed as the cloud's own type (*cloud.Network,
// ...). Security groups are also a ensure.Updater (their rules, compared as sets, are updated in place; a
// changed name, network or description is reported with conditions.ReasonNeedsReplacement, never repaired),
// and instances a ensure.PendingReporter (a booting instance is waited for). Every resource carries the
// ownership tags of ensure.Exists and TagCluster ("<namespace>/<cluster>"); its ID is recorded in
// status.resources under a resource key (KeyNetwork, SubnetKey(name), KeySecurityGroup, KeyLoadBalancer),
// except the instance, whose ID is spec.providerID (scope.ProviderIDTracker). memcloud's errors become reconcile's error classes: bad
// parameters, quotas and reused tokens are terminal, anything else (an injected fault, a lost response) is
// returned as it is and retried with backoff. NotFound on delete is success, and a delete blocked by
// dependent resources is no error either: the resource is still there, so the step reports that it is not
// done yet (reason DependencyViolation) and looks again after the poll interval.
//
// # What the cloud guarantees
//
// Every kind declares to ensure what its memcloud guarantees (ensure.Guarantees, from cloud.Behavior): creates
// idempotent by token, or not idempotent on a cloud that ignores tokens (cloud.WithoutTokens); a search that
// lists a resource as soon as its create returns, or, on a cloud whose creates are operations
// (cloud.WithAsyncCreates) or whose search lags (cloud.WithSearchLag), a search lag of the operation's time
// plus the search lag plus SearchLagMargin. On a cloud with operations a create returns ensure.Accepted with
// the operation, which ensure reads (ensure.OperationPoller) on later reconciles; meanwhile the steps report
// conditions.ReasonResourcePending and record nothing, and a delete waits for the operation
// (conditions.ReasonDeleting) and deletes what it made.
//
// # Bootstrap data
//
// The bootstrap data goes to the cloud as is and nowhere else: no service logs it or puts it into an error or
// a condition. It is read only to create the instance (the instance spec is a reconcile.Lazy spec), so a
// steady-state reconcile never reads the bootstrap data Secret.
package services
