// Package ipam claims, waits for and releases the IP addresses of machines from Cluster API IPAM pools. It is the
// infrastructure provider's half of Cluster API's IPAM contract, on unstructured objects (no Cluster API import).
//
// # The contract
//
// An infrastructure provider that gives a machine an address from a pool (the in-cluster provider's
// InClusterIPPool, or any IPAM provider's) creates an IPAddressClaim (ipam.cluster.x-k8s.io/v1beta2) whose
// spec.poolRef names the pool, owned by the InfraMachine, and waits. The IPAM provider allocates an address,
// creates an IPAddress named like the claim (spec.claimRef, spec.poolRef, spec.address, spec.prefix,
// spec.gateway) and sets the claim's status.addressRef. The IPAM provider sets no Ready condition (the in-cluster
// provider v1.1.0 sets none), so a Claimer waits on status.addressRef. Cluster API core has no IPAM controller:
// only webhooks that make both specs immutable.
//
// A Claimer does the provider's half, as steps of capkit's reconcilers (package reconcile): Claim creates one
// claim per Request and returns the Addresses in request order with a step.Result that is Done once all are
// allocated, or not done with conditions.ReasonWaitingForIPAddresses and a message naming the claims it waits
// for. Unclaim deletes the claims and returns a Result that is Done once they are gone, or not done with
// conditions.ReasonReleasingIPAddresses. Addresses that cannot be used are terminal errors with
// conditions.ReasonInvalidIPAddress. A step returns the Result and the error as they are:
//
//	addrs, res, err := claimer.Claim(ctx, machine, cluster, reqs)
//	if err != nil || !res.Done {
//		return nil, res, err // WaitingForIPAddresses, or a terminal InvalidIPAddress
//	}
//
// # Claims
//
// A claim is named ClaimName(machine, device, index): <machine>-<device>-<index>, index counting the machine's
// requests for the device, shortened with a hash beyond 253 characters. Reordering the pools of a device thus
// renames its claims: Claim then finds a claim that asks another pool and fails (ErrConflict) rather than use
// the wrong address. A claim carries spec.clusterName and the label cluster.x-k8s.io/cluster-name (the IPAM
// provider finds the Cluster through them and does nothing while it is paused), OwnerLabel (the owner's name)
// and a controller owner reference to the owner with blockOwnerDeletion.
//
// # Ownership
//
// A claim is the owner's when its controller reference names the owner's API group, kind and name; the UID is
// not compared, because clusterctl move gives the owner a new one (and rewrites the references). A claim under
// the expected name that another object controls, or that asks another pool, is never used or deleted: Claim
// returns an error wrapping ErrConflict that names the claim and what differs, retried with backoff. Neither is
// an IPAddress that names another claim or pool (an error wrapping ErrConflict), and bad values in an IPAddress
// (address, prefix beyond 32 or 128, a gateway of the other family) are errors wrapping ErrInvalid that name
// the IPAddress, the field and the value: an IPAddress's spec is immutable, so both are terminal.
//
// # clusterctl move
//
// A claim moves with its owner (its owner reference reaches the Cluster through the InfraMachine and the
// Machine); its IPAddress moves after the claim and the pool, so the pool's CRD must carry the
// clusterctl.cluster.x-k8s.io/move-hierarchy label (clusterctl init adds it to the in-cluster provider's
// CRDs), and the pool should be namespaced (a GlobalInClusterIPPool's addresses are left behind on the source).
// Status does not move: on the target every claim has an empty status.addressRef until the IPAM provider runs
// there, finds the moved IPAddress by the claim's name and sets it again. Claim waits for it and never
// replaces the claim; a provider whose machine is already provisioned keeps using the address it recorded. The
// Cluster stays paused until the move ends, and spec.clusterName is what makes the target's IPAM provider wait
// for that instead of allocating a second address (Cluster API issue 9478).
//
// # Unclaim
//
// The API server's garbage collector would delete the claims with their owner, but an owner with a finalizer
// is not deleted until the provider removes it, and envtest has no garbage collector. So call Unclaim in the
// delete path and remove the owner's finalizer only once it reports done: it deletes every claim the owner
// controls, found by name and by OwnerLabel, even when the Cluster is gone, and is done when none is left (the
// IPAM provider keeps a claim with its finalizer until it has released the address).
//
// # RBAC
//
// The provider's manager needs these rules (kubebuilder markers for its controller):
//
//	// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddressclaims,verbs=get;list;watch;create;delete
//	// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddresses,verbs=get;list;watch
package ipam
