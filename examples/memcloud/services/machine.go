package services

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// Instance is the step of a MemMachine: it creates the instance with the Machine's bootstrap data as user
// data, in the subnet of the machine's role and with the cluster's security group, registers control plane
// instances with the API server load balancer, and sets spec.providerID, status.addresses,
// status.failureDomain and, once the instance runs, the provisioned flag. It converges an existing instance
// to the spec's flavor and tags (v1beta2.InPlaceFields), changed in place: when they drifted, it changes the
// tags, starts a resize and reports ReasonInstanceUpdating until the instance runs with the spec's flavor.
//
// The instance's ID is recorded in spec.providerID ("memcloud://<id>") through scope.ProviderIDTracker, so
// that the checkpoint after the create is a single spec write.
type Instance struct {
	base
	lookup  NetworkLookup
	claimer AddressClaimer
}

// NewInstance returns the instance service of memcloud c; lookup finds the machine's cluster network
// (MemClusterLookup in a controller). WithAddressClaimer lets it take addresses from IPAM pools
// (spec.addressesFromPools).
func NewInstance(c *cloud.Cloud, lookup NetworkLookup, opts ...InstanceOption) (*Instance, error) {
	b, err := newBase(c, "instance")
	if err == nil && lookup == nil {
		err = errors.New("cannot create the instance service: network lookup must not be nil")
	}
	n := &Instance{base: b, lookup: lookup}
	for _, o := range opts {
		if o != nil {
			o(n)
		}
	}
	return n, err
}

// tracker keeps the instance's ID in spec.providerID and every other ID in status.resources.
func (n *Instance) tracker(s scope.MachineScoper[*v1beta2.MemMachine]) (scope.ResourceTracker, error) {
	return scope.ProviderIDTracker(s, s.InfraMachine(), KeyInstance, v1beta2.ProviderID, v1beta2.InstanceIDFromProviderID)
}

// clusterNetwork looks up the network of the machine's cluster.
func (n *Instance) clusterNetwork(ctx context.Context, s scope.MachineScoper[*v1beta2.MemMachine]) (ClusterNetwork, error) {
	return n.lookup.ClusterNetwork(ctx, s.InfraMachine().Namespace, s.Cluster())
}

// Reconcile ensures the instance exists and reports it.
func (n *Instance) Reconcile(ctx context.Context, s scope.MachineScoper[*v1beta2.MemMachine]) (step.Result, error) {
	mm := s.InfraMachine()
	controlPlane := s.Machine().ControlPlane
	net, err := n.clusterNetwork(ctx, s)
	if err != nil {
		return step.Result{}, err
	}
	role := v1beta2.SubnetRoleWorker
	if controlPlane {
		role = v1beta2.SubnetRoleControlPlane
	}
	subnetID := net.SubnetIDs[role]
	if subnetID == "" || net.SecurityGroupID == "" || (controlPlane && net.LoadBalancerID == "") {
		return step.Result{Reason: ReasonWaitingForNetwork, Message: fmt.Sprintf("the %s subnet, security group or load balancer of the cluster is not recorded yet", role)}, nil
	}
	tracker, err := n.tracker(s)
	if err != nil {
		return step.Result{}, err
	}
	spec := machineSpec(mm)
	// The addresses of IPAM pools are claimed until the instance is recorded: once it is, they are the
	// instance's (a steady-state reconcile reads no claim, and a machine moved by clusterctl, whose claims
	// have lost their status.addressRef until the IPAM provider runs again, keeps running).
	// snippet:start claim
	var staticIPs []string
	if _, recorded := tracker.ResourceID(KeyInstance); !recorded && len(spec.AddressesFromPools) > 0 {
		ips, res, err := n.staticIPs(ctx, mm, s.Cluster().Name)
		if err != nil || !res.Done {
			return res, err // WaitingForIPAddresses, with the names of the claims
		}
		staticIPs = ips
	}
	// snippet:end claim
	// The bootstrap data is read only when the instance must be created: a steady-state reconcile reads
	// the instance and nothing else.
	desired := ensure.Lazy(func(ctx context.Context) (cloud.InstanceSpec, error) {
		data, _, err := s.BootstrapData(ctx) // secret: never logged, never in an error
		if err != nil {
			return cloud.InstanceSpec{}, err
		}
		return cloud.InstanceSpec{
			Name: mm.Name, SubnetID: subnetID, Image: spec.Image, Flavor: string(spec.Flavor),
			SecurityGroupIDs: []string{net.SecurityGroupID}, StaticIPs: staticIPs, UserData: data,
		}, nil
	})
	// The user tags first: memcloud's own win (WithTags keeps the last value, the ownership tags always win).
	res, err := ensure.Exists(ctx, tracker, KeyInstance, n.res.Instances, desired,
		ensure.WithTags(userTags(spec.Tags)), clusterTags(mm.Namespace, s.Cluster().Name), ensure.CreateOnce())
	if err != nil {
		return step.Result{}, err
	}
	if res.ID == "" {
		return res.Result, nil // no instance yet: its create operation runs, or the search may still miss it
	}
	inst := res.Observed
	mm.Status.InstanceState = string(inst.State)
	mm.Status.Addresses = machineAddresses(inst)
	if fd := cmp.Or(s.Machine().FailureDomain, spec.FailureDomain); fd != "" {
		mm.Status.FailureDomain = fd
	}
	if controlPlane {
		if err := n.register(ctx, net.LoadBalancerID, inst.ID); err != nil {
			return step.Result{}, err
		}
	}
	switch {
	case !res.Result.Done: // booting or being resized (ensure.PendingReporter)
		return res.Result, nil
	case inst.State == cloud.InstanceFailed:
		return step.Result{}, step.Terminal(ReasonInstanceFailed, fmt.Errorf("instance %q failed to boot", inst.ID))
	}
	// snippet:start drift
	// The drift check compares what Ensure observed: a steady-state reconcile calls nothing more, and never
	// computes the Lazy spec (it would read the bootstrap data Secret).
	inst, matched, err := converge(ctx, n.cloud, inst, string(spec.Flavor), userTags(spec.Tags))
	if err != nil {
		return step.Result{}, classify(fmt.Errorf("cannot update instance %q in place: %w", inst.ID, err))
	}
	mm.Status.InstanceState = string(inst.State)
	// snippet:end drift
	switch {
	case !matched:
		return step.Result{Reason: ReasonInstanceUpdating, Message: instanceProgress(inst), RequeueAfter: step.EnvFrom(ctx).PollInterval()}, nil
	case inst.State != cloud.InstanceRunning:
		return step.Result{Reason: ReasonInstanceStopped, Message: fmt.Sprintf("instance %s is %s", inst.ID, inst.State)}, nil
	}
	mm.Status.ObservedGeneration = mm.Generation
	mm.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// machineAddresses returns the addresses of inst for status.addresses: its private IP, its static IPs (from
// IPAM pools), all InternalIP, and its name as HostName.
func machineAddresses(inst *cloud.Instance) []contract.MachineAddress {
	out := make([]contract.MachineAddress, 0, 2+len(inst.StaticIPs))
	out = append(out, contract.MachineAddress{Type: contract.MachineInternalIP, Address: inst.PrivateIP})
	for _, ip := range inst.StaticIPs {
		out = append(out, contract.MachineAddress{Type: contract.MachineInternalIP, Address: ip})
	}
	return append(out, contract.MachineAddress{Type: contract.MachineHostName, Address: inst.Name})
}

// register adds the instance to the load balancer's targets unless it is there: a registered instance
// costs a read, never a write.
func (n *Instance) register(ctx context.Context, lbID, instanceID string) error {
	if err := wait(ctx); err != nil {
		return err
	}
	lb, err := n.cloud.GetLoadBalancer(ctx, lbID)
	if err != nil {
		return classify(fmt.Errorf("cannot read load balancer %q: %w", lbID, err))
	}
	if slices.Contains(lb.Targets, instanceID) {
		return nil
	}
	if err := wait(ctx); err != nil {
		return err
	}
	if err := n.cloud.RegisterTarget(ctx, lbID, instanceID); err != nil {
		return classify(fmt.Errorf("cannot register instance %q with load balancer %q: %w", instanceID, lbID, err))
	}
	return nil
}

// Delete deregisters a control plane instance from the load balancer and deletes the instance, recorded in
// spec.providerID or found by its tags; then it releases the IPAddressClaims of spec.addressesFromPools and
// waits until they are gone (conditions.ReasonReleasingIPAddresses), so that an address returns to its pool only once no
// instance has it.
func (n *Instance) Delete(ctx context.Context, s scope.MachineScoper[*v1beta2.MemMachine]) (step.Result, error) {
	tracker, err := n.tracker(s)
	if err != nil {
		return step.Result{}, err
	}
	if id, ok := tracker.ResourceID(KeyInstance); ok && s.Machine().ControlPlane {
		if err := n.deregister(ctx, s, id); err != nil {
			return step.Result{}, err
		}
	}
	// snippet:start release
	res, err := n.deleted(tracker, KeyInstance)(ensure.Deleted(ctx, tracker, KeyInstance, n.res.Instances))
	if err != nil || !res.Done || len(s.InfraMachine().Spec.AddressesFromPools) == 0 {
		return res, err // the instance first: an address goes back to its pool only once no instance has it
	}
	return n.releaseAddresses(ctx, s.InfraMachine()) // ReleasingIPAddresses until the claims are gone
	// snippet:end release
}

// deregister removes the instance from the load balancer's targets when both still exist.
func (n *Instance) deregister(ctx context.Context, s scope.MachineScoper[*v1beta2.MemMachine], instanceID string) error {
	net, err := n.clusterNetwork(ctx, s)
	if errors.Is(err, ErrNoMemCluster) || (err == nil && net.LoadBalancerID == "") {
		return nil // the cluster is gone: so is its load balancer
	}
	if err != nil {
		return err
	}
	if err := wait(ctx); err != nil {
		return err
	}
	lb, err := n.cloud.GetLoadBalancer(ctx, net.LoadBalancerID)
	if errors.Is(err, cloud.ErrNotFound) {
		return nil
	}
	if err != nil {
		return classify(fmt.Errorf("cannot read load balancer %q: %w", net.LoadBalancerID, err))
	}
	if !slices.Contains(lb.Targets, instanceID) {
		return nil
	}
	if err := wait(ctx); err != nil {
		return err
	}
	if err := n.cloud.DeregisterTarget(ctx, lb.ID, instanceID); err != nil && !errors.Is(err, cloud.ErrNotFound) {
		return classify(fmt.Errorf("cannot deregister instance %q from load balancer %q: %w", instanceID, lb.ID, err))
	}
	return nil
}
