package services

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// AddressClaimer claims a machine's IP addresses from Cluster API IPAM pools and releases them: capkit's
// *ipam.Claimer implements it (controllers.NewMachineReconciler builds one on the manager's client).
type AddressClaimer interface {
	// Ensure creates owner's missing IPAddressClaims for cluster, one per request, and returns the addresses
	// in request order once every claim is bound; until then it returns the names of the claims it waits for.
	Ensure(ctx context.Context, owner client.Object, cluster string, reqs []ipam.Request) (addrs []ipam.Address, waiting []string, err error)
	// Release deletes owner's claims and reports done once none is left.
	Release(ctx context.Context, owner client.Object, reqs []ipam.Request) (done bool, err error)
}

var _ AddressClaimer = (*ipam.Claimer)(nil)

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
		reqs = append(reqs, ipam.Request{Device: v1beta2.MachineDevice, Pool: ipam.PoolRef{APIGroup: p.APIGroup, Kind: p.Kind, Name: p.Name}})
	}
	return reqs
}

// errNoClaimer is the error of a machine with IPAM pools on an instance service without WithAddressClaimer.
var errNoClaimer = errors.New("spec.addressesFromPools is set but the instance service has no IPAM claimer")

// claimAddresses claims the addresses of the machine's pools, before its instance is created, and returns
// them as the instance's static IPs once every claim is bound. While one is not, it returns a Result that is
// not done, with ReasonWaitingForIPAddresses, a message naming the claims and the poll interval.
func (n *Instance) claimAddresses(ctx context.Context, s scope.MachineScoper[*v1beta2.MemMachine], pools []v1beta2.IPPoolRef) ([]string, reconcile.Result, error) {
	if n.claimer == nil {
		return nil, reconcile.Result{}, reconcile.Terminal(ReasonInvalidIPAddress, errNoClaimer)
	}
	// snippet:start ensure
	addrs, waiting, err := n.claimer.Ensure(ctx, s.InfraMachine(), s.Cluster().Name, AddressRequests(pools))
	if err != nil {
		return nil, reconcile.Result{}, classifyIPAM(fmt.Errorf("cannot claim the IP addresses of the machine: %w", err))
	}
	if len(waiting) > 0 {
		return nil, reconcile.Result{Reason: ReasonWaitingForIPAddresses, Message: ipam.WaitingMessage(waiting),
			RequeueAfter: reconcile.EnvFrom(ctx).PollInterval()}, nil
	}
	// snippet:end ensure
	ips := make([]string, 0, len(addrs))
	for _, a := range addrs {
		ips = append(ips, a.Address.String())
	}
	return ips, reconcile.Result{Done: true}, nil
}

// releaseAddresses deletes the machine's IPAddressClaims, after its instance is gone, and reports done once
// none is left (the IPAM provider keeps a claim until it has released the address): until then the Result has
// ReasonReleasingIPAddresses and the poll interval. It needs neither the Cluster nor the garbage collector.
func (n *Instance) releaseAddresses(ctx context.Context, mm *v1beta2.MemMachine) (reconcile.Result, error) {
	if n.claimer == nil {
		return reconcile.Result{}, reconcile.Terminal(ReasonInvalidIPAddress, errNoClaimer)
	}
	done, err := n.claimer.Release(ctx, mm, AddressRequests(mm.Spec.AddressesFromPools))
	if err != nil {
		return reconcile.Result{}, classifyIPAM(fmt.Errorf("cannot release the IP addresses of the machine: %w", err))
	}
	if !done {
		return reconcile.Result{Reason: ReasonReleasingIPAddresses, Message: "waiting for the IPAddressClaims of the machine to be deleted",
			RequeueAfter: reconcile.EnvFrom(ctx).PollInterval()}, nil
	}
	return reconcile.Result{Done: true}, nil
}

// classifyIPAM makes an error of the IPAM claimer about bad values (ipam.ErrInvalid) terminal, with
// ReasonInvalidIPAddress; a conflict with another object's claim (ipam.ErrConflict) and API errors are retried
// with backoff.
func classifyIPAM(err error) error {
	if errors.Is(err, ipam.ErrInvalid) {
		return reconcile.Terminal(ReasonInvalidIPAddress, err)
	}
	return err
}
