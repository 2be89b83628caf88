package services

import (
	"context"
	"errors"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile/step"
)

// AddressClaimer claims a machine's IP addresses from Cluster API IPAM pools and releases them: capkit's
// ipam.AddressClaimer, which *ipam.Claimer implements (controllers.NewMachineReconciler builds one on the
// manager's client).
type AddressClaimer = ipam.AddressClaimer

// InstanceOption configures NewInstance.
type InstanceOption func(*Instance)

// WithAddressClaimer makes the instance service take the addresses of spec.addressesFromPools through c.
// Without it, a MemMachine that sets spec.addressesFromPools fails with a terminal error.
func WithAddressClaimer(c AddressClaimer) InstanceOption { return func(n *Instance) { n.claimer = c } }

// AddressRequests returns the IPAM requests of a MemMachine's spec.addressesFromPools: one per pool, in order,
// all for the machine's single device v1beta2.MachineDevice; nil when there is no pool.
func AddressRequests(pools []v1beta2.IPPoolRef) []ipam.Request {
	if len(pools) == 0 {
		return nil
	}
	reqs := make([]ipam.Request, 0, len(pools))
	for _, p := range pools {
		reqs = append(reqs, ipam.Request{Device: v1beta2.MachineDevice, Pool: p})
	}
	return reqs
}

// errNoClaimer is the error of a machine with IPAM pools on an instance service without WithAddressClaimer.
var errNoClaimer = step.Terminal(conditions.ReasonInvalidIPAddress,
	errors.New("spec.addressesFromPools is set but the instance service has no IPAM claimer"))

// staticIPs claims the addresses of the machine's pools, before its instance is created, and returns them as
// the instance's static IPs once every claim is bound; until then it returns Claim's Result and error.
func (n *Instance) staticIPs(ctx context.Context, mm *v1beta2.MemMachine, cluster string) ([]string, step.Result, error) {
	if n.claimer == nil {
		return nil, step.Result{}, errNoClaimer
	}
	// snippet:start claim
	addrs, res, err := n.claimer.Claim(ctx, mm, cluster, AddressRequests(mm.Spec.AddressesFromPools))
	if err != nil || !res.Done {
		return nil, res, err // WaitingForIPAddresses naming the claims, or a terminal InvalidIPAddress
	}
	// snippet:end claim
	ips := make([]string, 0, len(addrs))
	for _, a := range addrs {
		ips = append(ips, a.Address.String())
	}
	return ips, res, nil
}

// releaseAddresses deletes the machine's IPAddressClaims, after its instance is gone: Unclaim's Result is Done
// once none is left, else not done with ReleasingIPAddresses.
func (n *Instance) releaseAddresses(ctx context.Context, mm *v1beta2.MemMachine) (step.Result, error) {
	if n.claimer == nil {
		return step.Result{}, errNoClaimer
	}
	return n.claimer.Unclaim(ctx, mm, AddressRequests(mm.Spec.AddressesFromPools))
}
