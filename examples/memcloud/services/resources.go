package services

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
)

// Reasons of the step conditions memcloud's services write, besides those of package reconcile.
const (
	// ReasonQuotaExceeded: the cloud refused a create because a quota is used up; raise it.
	ReasonQuotaExceeded = "QuotaExceeded"
	// ReasonResourceDeleted: a resource this object created was deleted outside the controller, and its
	// idempotency token cannot create it again (ensure.CreateOnce reports an instance the same way).
	ReasonResourceDeleted = conditions.ReasonResourceDeleted
	// ReasonTokenMismatch: the same idempotency token was used with other parameters.
	ReasonTokenMismatch = "TokenMismatch"
	// ReasonDependencyViolation: a delete waits for resources that still depend on the resource (the reason
	// of a step result that is not done, never an error).
	ReasonDependencyViolation = "DependencyViolation"
	// ReasonInstancePending: the instance is booting.
	ReasonInstancePending = "InstancePending"
	// ReasonInstanceUpdating: the instance's flavor or tags differ from the spec's (v1beta2.InPlaceFields) and
	// are being changed in place: the instance restarts with its new flavor.
	ReasonInstanceUpdating = "InstanceUpdating"
	// ReasonInstanceStopped: the instance is stopped.
	ReasonInstanceStopped = "InstanceStopped"
	// ReasonInstanceFailed: the instance failed to boot; it will not recover.
	ReasonInstanceFailed = "InstanceFailed"
	// ReasonWaitingForNetwork: a resource this step needs (network, subnet, security group, load balancer)
	// is not recorded yet.
	ReasonWaitingForNetwork = "WaitingForNetwork"
)

// kind returns the functions every memcloud kind of resource shares, as ensure.ResourceFuncs[S, *R]: S is
// the create request of the kind (cloud.NetworkSpec, ...), R the resource, which is also what Ensure observes.
// NotFound means gone; FindByTags returns the oldest resource carrying the tags (memcloud lists them in
// creation order); a delete of a resource that is gone is success, and so is a delete refused because other
// resources depend on it: the resource is still there, so ensure.Deleted reports that it is not done
// yet, and the step looks again later. The Guarantees are those of c (guarantees), and a create operation
// of c is read with pollOperation.
func kind[S, R any](c *cloud.Cloud, name string, get func(context.Context, string) (*R, error), find func(context.Context, map[string]string) ([]R, error),
	del func(context.Context, string) error, id func(*R) string) ensure.ResourceFuncs[S, *R] {
	notFound := func(err error) bool { return errors.Is(err, cloud.ErrNotFound) }
	return ensure.ResourceFuncs[S, *R]{
		ResourceKind:      name,
		GetFunc:           ensure.GoneIfNotFound(get, notFound),
		FindByTagsFunc:    ensure.FindOldest(find, nil),
		DeleteFunc:        ensure.IgnoreErrors(del, notFound, func(err error) bool { return errors.Is(err, cloud.ErrDependencyViolation) }),
		IDFunc:            id,
		ClassifyFunc:      classify,
		PollOperationFunc: pollOperation(c, name, get),
		Guarantees:        guarantees(c.Behavior()),
	}
}

// SearchLagMargin is what the services add to the time a memcloud with asynchronous creates or a lagging
// search takes to list a new resource, when they declare its search lag to capkit (ensure.Guarantees): the
// time between ensure's note of a create and the create call (a checkpoint, the rate limiter, latency).
const SearchLagMargin = time.Second

// guarantees is what a memcloud that behaves as b guarantees: creates idempotent by token unless it ignores
// tokens, and a search that lists a resource as soon as its create returns unless its creates are
// asynchronous or its search lags; then the search lists it at most the operation's time, the search lag
// and SearchLagMargin after the create call. FaultConfig.SearchLag, a lag counted in Find calls for fault
// injection, is not declared: no time bounds it.
func guarantees(b cloud.Behavior) ensure.Guarantees {
	g := ensure.Guarantees{Idempotency: ensure.IdempotentByToken}
	if b.IgnoresTokens {
		g.Idempotency = ensure.NotIdempotent
	}
	if b.AsyncCreates == 0 && b.SearchLag == 0 {
		g.ImmediateSearch = true
		return g
	}
	g.SearchLag = b.AsyncCreates + b.SearchLag + SearchLagMargin
	return g
}

// created is what a create of memcloud returned, as ensure.Exists expects it: the resource, or
// ensure.Accepted with the operation of a cloud with asynchronous creates.
func created[R any](res *R, err error) (*R, error) {
	if op, ok := cloud.Accepted(err); ok {
		return nil, ensure.Accepted(op)
	}
	return res, err
}

// pollOperation returns the ensure.OperationPoller function of the kind name of c, read with get: the resource
// the create operation op made once it is done (read through ensure.Call, a second cloud call); an error
// wrapping ensure.ErrOperationFailed when the operation failed, when c does not know it (nothing of it can
// appear), or when its resource is gone since (ensure.Exists then creates again: with the same token memcloud
// refuses, as for any resource deleted out of band).
func pollOperation[R any](c *cloud.Cloud, name string, get func(context.Context, string) (*R, error)) func(context.Context, string) (*R, bool, error) {
	return func(ctx context.Context, op string) (*R, bool, error) {
		o, err := c.GetOperation(ctx, op)
		switch {
		case errors.Is(err, cloud.ErrNotFound):
			return nil, false, fmt.Errorf("%w: %w", ensure.ErrOperationFailed, err)
		case err != nil:
			return nil, false, err
		case !o.Done:
			return nil, false, nil
		case o.Failed():
			return nil, false, fmt.Errorf("%w: operation %q: %s", ensure.ErrOperationFailed, op, o.Error)
		}
		var res *R
		err = ensure.Call(ctx, name, "get", func(ctx context.Context) error {
			r, err := get(ctx, o.ResourceID)
			res = r
			return classify(err)
		})
		if errors.Is(err, cloud.ErrNotFound) {
			return nil, false, fmt.Errorf("%w: operation %q created %q, which is gone: %w", ensure.ErrOperationFailed, op, o.ResourceID, err)
		}
		return res, err == nil, err
	}
}

// classify gives a cloud error its class for capkit's reconcilers: terminal when retrying cannot help,
// throttled (requeued after the cloud's hint, not a failure) when the rate limit refused the call.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cloud.ErrThrottled):
		retryAfter, _ := cloud.RetryAfter(err)
		return step.Throttled(err, retryAfter)
	case errors.Is(err, cloud.ErrInvalidParameter):
		return step.Terminal(conditions.ReasonInvalidParameters, err)
	case errors.Is(err, cloud.ErrQuotaExceeded):
		return step.Terminal(ReasonQuotaExceeded, err)
	case errors.Is(err, cloud.ErrTokenReused):
		return step.Terminal(ReasonResourceDeleted, err)
	case errors.Is(err, cloud.ErrTokenMismatch):
		return step.Terminal(ReasonTokenMismatch, err)
	}
	return err
}

// wait waits for the rate limiter of the reconcile (reconcile.WithRateLimiter) before a cloud call that does
// not go through ensure.Exists.
func wait(ctx context.Context) error {
	_, err := step.EnvFrom(ctx).Wait(ctx)
	return err
}

// Resources are memcloud's resource kinds as reconcile.Resources, for ensure.Exists and EnsureDeleted. The
// observation of each kind is the cloud's own type, so that a service reads what Ensure returns instead of
// reading the resource again.
type Resources struct {
	// Networks are the networks.
	Networks ensure.Resource[cloud.NetworkSpec, *cloud.Network]
	// Subnets are the subnets.
	Subnets ensure.Resource[cloud.SubnetSpec, *cloud.Subnet]
	// SecurityGroups are the security groups; they are also a ensure.Updater: Ensure updates their ingress
	// rules in place when they differ from the spec (in any order), and reports a changed name, network or
	// description with conditions.ReasonNeedsReplacement.
	SecurityGroups ensure.Resource[cloud.SecurityGroupSpec, *cloud.SecurityGroup]
	// LoadBalancers are the load balancers.
	LoadBalancers ensure.Resource[cloud.LoadBalancerSpec, *cloud.LoadBalancer]
	// Instances are the instances; they are also a ensure.PendingReporter: Ensure waits for a pending
	// (booting) instance with ReasonInstancePending.
	Instances ensure.Resource[cloud.InstanceSpec, *cloud.Instance]
	// InstanceGroups are the instance groups of machine pools.
	InstanceGroups ensure.Resource[cloud.InstanceGroupSpec, *cloud.InstanceGroup]
}

// NewResources returns the resource kinds of c.
func NewResources(c *cloud.Cloud) Resources {
	networks := kind[cloud.NetworkSpec](c, "network", c.GetNetwork, c.FindNetworks, c.DeleteNetwork, func(n *cloud.Network) string { return n.ID })
	networks.ValidateFunc = func(s cloud.NetworkSpec) error { return errors.Join(required("name", s.Name), cidr("cidr", s.CIDR)) }
	networks.CreateFunc = func(ctx context.Context, s cloud.NetworkSpec, token string, tags map[string]string) (*cloud.Network, error) {
		s.IdempotencyToken, s.Tags = token, tags
		return created(c.CreateNetwork(ctx, s))
	}
	subnets := kind[cloud.SubnetSpec](c, "subnet", c.GetSubnet, c.FindSubnets, c.DeleteSubnet, func(n *cloud.Subnet) string { return n.ID })
	subnets.ValidateFunc = func(s cloud.SubnetSpec) error {
		return errors.Join(required("name", s.Name), required("networkID", s.NetworkID), cidr("cidr", s.CIDR))
	}
	subnets.CreateFunc = func(ctx context.Context, s cloud.SubnetSpec, token string, tags map[string]string) (*cloud.Subnet, error) {
		s.IdempotencyToken, s.Tags = token, tags
		return created(c.CreateSubnet(ctx, s))
	}
	lbs := kind[cloud.LoadBalancerSpec](c, "load-balancer", c.GetLoadBalancer, c.FindLoadBalancers, c.DeleteLoadBalancer,
		func(n *cloud.LoadBalancer) string { return n.ID })
	lbs.ValidateFunc = func(s cloud.LoadBalancerSpec) error {
		var err error
		if s.Port < 0 || s.Port > 65535 {
			err = fmt.Errorf("port %d must be from 1 to 65535", s.Port)
		}
		return errors.Join(required("name", s.Name), required("networkID", s.NetworkID), err)
	}
	lbs.CreateFunc = func(ctx context.Context, s cloud.LoadBalancerSpec, token string, tags map[string]string) (*cloud.LoadBalancer, error) {
		s.IdempotencyToken, s.Tags = token, tags
		return created(c.CreateLoadBalancer(ctx, s))
	}
	groups := kind[cloud.InstanceGroupSpec](c, "instance-group", c.GetInstanceGroup, c.FindInstanceGroups, c.DeleteInstanceGroup,
		func(g *cloud.InstanceGroup) string { return g.ID })
	groups.ValidateFunc = func(s cloud.InstanceGroupSpec) error {
		var errs []error
		if len(s.UserData) == 0 {
			errs = append(errs, errors.New("userData must not be empty"))
		}
		if s.Size < 0 {
			errs = append(errs, fmt.Errorf("size %d must not be negative", s.Size))
		}
		return errors.Join(append(errs, required("name", s.Name), required("subnetID", s.SubnetID),
			required("image", s.Image), required("flavor", s.Flavor))...)
	}
	groups.CreateFunc = func(ctx context.Context, s cloud.InstanceGroupSpec, token string, tags map[string]string) (*cloud.InstanceGroup, error) {
		s.IdempotencyToken, s.Tags = token, tags
		return created(c.CreateInstanceGroup(ctx, s))
	}
	return Resources{
		Networks:       ensure.NewResource(networks),
		Subnets:        ensure.NewResource(subnets),
		SecurityGroups: newSecurityGroups(c),
		LoadBalancers:  ensure.NewResource(lbs),
		Instances:      newInstances(c),
		InstanceGroups: ensure.NewResource(groups),
	}
}

func required(field, value string) error {
	if value == "" {
		return fmt.Errorf("%s must not be empty", field)
	}
	return nil
}

func cidr(field, value string) error {
	p, err := netip.ParsePrefix(value)
	if err != nil || !p.Addr().Is4() || p.Masked() != p {
		return fmt.Errorf("%s %q must be a canonical IPv4 CIDR", field, value)
	}
	return nil
}
