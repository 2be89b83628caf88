package services

import (
	"context"
	"errors"
	"fmt"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// errNilCloud is returned by the constructors given no cloud.
var errNilCloud = errors.New("cloud must not be nil")

// The services of this package plug into capkit's reconcilers without glue.
var (
	_ reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]] = (*Network)(nil)
	_ reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]] = (*Subnets)(nil)
	_ reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]] = (*SecurityGroup)(nil)
	_ reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]] = (*LoadBalancer)(nil)
	_ reconcile.Service[scope.MachineScoper[*v1beta2.MemMachine]] = (*Instance)(nil)
)

// base is what every service holds.
type base struct {
	cloud *cloud.Cloud
	res   Resources
}

func newBase(c *cloud.Cloud, what string) (base, error) {
	if c == nil {
		return base{}, fmt.Errorf("cannot create the %s service: %w", what, errNilCloud)
	}
	return base{cloud: c, res: NewResources(c)}, nil
}

// deleted returns the function that turns the outcome of ensure.Deleted of the resource key of t into the
// step result. memcloud deletes at once, so a resource that is still there after ensure.Deleted is one whose
// delete was refused because other resources depend on it (Resources.Delete): the step reports
// ReasonDependencyViolation instead of conditions.ReasonDeleting, and looks again after the poll interval.
// The exception is a delete that waits for a create in flight (its note is on t, a scope.PendingTracker: an
// operation runs, or the search may still miss what a create made), which keeps conditions.ReasonDeleting.
func (b base) deleted(t scope.ResourceTracker, key string) func(step.Result, error) (step.Result, error) {
	return func(res step.Result, err error) (step.Result, error) {
		if err != nil || res.Done || res.Reason != conditions.ReasonDeleting {
			return res, err
		}
		if pt, ok := t.(scope.PendingTracker); ok {
			if _, inFlight := pt.Pending(key); inFlight {
				return res, nil
			}
		}
		res.Reason = ReasonDependencyViolation
		res.Message += ": resources that depend on it remain"
		return res, nil
	}
}

// waitingForNetwork is the result of a step whose network is not recorded yet.
func (b base) waitingForNetwork() step.Result {
	return step.Result{Reason: ReasonWaitingForNetwork, Message: "the network is not recorded yet"}
}

// clusterResource returns the name, in the cloud, of the cluster's resource key.
func clusterResource(s scope.ClusterScoper[*v1beta2.MemCluster], key string) string {
	return s.Cluster().Name + "-" + key
}

// tagsOf returns the Ensure option that tags a cluster's resources with TagCluster.
func tagsOf(s scope.ClusterScoper[*v1beta2.MemCluster]) ensure.Option {
	return clusterTags(s.InfraCluster().Namespace, s.Cluster().Name)
}

// Network is the step that creates a MemCluster's network, with spec.network.cidr.
type Network struct{ base }

// NewNetwork returns the network service of memcloud c.
func NewNetwork(c *cloud.Cloud) (*Network, error) {
	b, err := newBase(c, "network")
	return &Network{b}, err
}

// Reconcile ensures the network exists.
func (n *Network) Reconcile(ctx context.Context, s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	spec := clusterSpec(s.InfraCluster())
	res, err := ensure.Exists(ctx, s, KeyNetwork, n.res.Networks,
		ensure.Given(cloud.NetworkSpec{Name: clusterResource(s, KeyNetwork), CIDR: spec.Network.CIDR}), tagsOf(s))
	return res.Result, err
}

// Delete deletes the network; it waits while subnets, security groups or load balancers remain in it.
func (n *Network) Delete(ctx context.Context, s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	return n.deleted(s, KeyNetwork)(ensure.Deleted(ctx, s, KeyNetwork, n.res.Networks))
}

// Subnets is the step that creates the subnets of spec.network.subnets in the network.
type Subnets struct{ base }

// NewSubnets returns the subnet service of memcloud c.
func NewSubnets(c *cloud.Cloud) (*Subnets, error) {
	b, err := newBase(c, "subnets")
	return &Subnets{b}, err
}

// Reconcile ensures every subnet of the spec exists.
func (n *Subnets) Reconcile(ctx context.Context, s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	netID, ok := s.ResourceID(KeyNetwork)
	if !ok {
		return n.waitingForNetwork(), nil
	}
	for _, sn := range clusterSpec(s.InfraCluster()).Network.Subnets {
		key := SubnetKey(sn.Name)
		res, err := ensure.Exists(ctx, s, key, n.res.Subnets,
			ensure.Given(cloud.SubnetSpec{Name: clusterResource(s, key), NetworkID: netID, CIDR: sn.CIDR}), tagsOf(s))
		if err != nil || !res.Result.Done {
			return res.Result, err
		}
	}
	return step.Result{Done: true}, nil
}

// Delete deletes the subnets of the spec, recorded or found by their tags; it waits while instances remain
// in them.
func (n *Subnets) Delete(ctx context.Context, s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	// spec.network never changes (webhook), so its subnets are the ones that were created.
	subnets := clusterSpec(s.InfraCluster()).Network.Subnets
	for i := len(subnets) - 1; i >= 0; i-- {
		key := SubnetKey(subnets[i].Name)
		res, err := ensure.Deleted(ctx, s, key, n.res.Subnets)
		if err != nil || !res.Done {
			return n.deleted(s, key)(res, err)
		}
	}
	return step.Result{Done: true}, nil
}

// LoadBalancer is the last step of a MemCluster: it creates the API server load balancer, sets
// spec.controlPlaneEndpoint to its host and port (unless the user set an endpoint), copies
// spec.failureDomains to status.failureDomains and marks the MemCluster provisioned.
type LoadBalancer struct{ base }

// NewLoadBalancer returns the load balancer service of memcloud c.
func NewLoadBalancer(c *cloud.Cloud) (*LoadBalancer, error) {
	b, err := newBase(c, "load balancer")
	return &LoadBalancer{b}, err
}

// Reconcile ensures the load balancer exists and completes the MemCluster's contract fields.
func (l *LoadBalancer) Reconcile(ctx context.Context, s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	netID, ok := s.ResourceID(KeyNetwork)
	if !ok {
		return l.waitingForNetwork(), nil
	}
	mc := s.InfraCluster()
	spec := clusterSpec(mc)
	res, err := ensure.Exists(ctx, s, KeyLoadBalancer, l.res.LoadBalancers, ensure.Given(cloud.LoadBalancerSpec{
		Name: clusterResource(s, KeyLoadBalancer), NetworkID: netID, Port: int(spec.LoadBalancer.Port)}), tagsOf(s))
	if err != nil || !res.Result.Done {
		return res.Result, err
	}
	if mc.Spec.ControlPlaneEndpoint.Host == "" {
		lb := res.Observed
		mc.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: lb.Host, Port: int32(lb.Port)}
		// The endpoint is set once; persisting it now lets status.observedGeneration below see the
		// generation it makes, at no extra write (Close would send this spec patch anyway).
		if err := scope.PatchSpec(ctx, s); err != nil {
			return step.Result{}, err
		}
	}
	if len(spec.FailureDomains) > 0 {
		mc.Status.FailureDomains = failureDomains(spec.FailureDomains)
	}
	mc.Status.ObservedGeneration = mc.Generation
	mc.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// Delete deletes the load balancer.
func (l *LoadBalancer) Delete(ctx context.Context, s scope.ClusterScoper[*v1beta2.MemCluster]) (step.Result, error) {
	return l.deleted(s, KeyLoadBalancer)(ensure.Deleted(ctx, s, KeyLoadBalancer, l.res.LoadBalancers))
}
