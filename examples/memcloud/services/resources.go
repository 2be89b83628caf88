package services

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile"
)

// Reasons of the step conditions memcloud's services write, besides those of package reconcile.
const (
	// ReasonQuotaExceeded: the cloud refused a create because a quota is used up; raise it.
	ReasonQuotaExceeded = "QuotaExceeded"
	// ReasonResourceDeleted: a resource this object created was deleted outside the controller, and its
	// idempotency token cannot create it again (reconcile.CreateOnce reports an instance the same way).
	ReasonResourceDeleted = reconcile.ReasonResourceDeleted
	// ReasonTokenMismatch: the same idempotency token was used with other parameters.
	ReasonTokenMismatch = "TokenMismatch"
	// ReasonDependencyViolation: a delete waits for resources that still depend on the resource (the reason
	// of a step result that is not done, never an error).
	ReasonDependencyViolation = "DependencyViolation"
	// ReasonInstancePending: the instance is booting.
	ReasonInstancePending = "InstancePending"
	// ReasonInstanceStopped: the instance is stopped.
	ReasonInstanceStopped = "InstanceStopped"
	// ReasonInstanceFailed: the instance failed to boot; it will not recover.
	ReasonInstanceFailed = "InstanceFailed"
	// ReasonWaitingForNetwork: a resource this step needs (network, subnet, security group, load balancer)
	// is not recorded yet.
	ReasonWaitingForNetwork = "WaitingForNetwork"
)

// cloudResource adapts one kind of memcloud resource to reconcile.Resource[S, *R]. S is the create request
// of the kind (cloud.NetworkSpec, ...), R the resource, which is also what Ensure observes.
type cloudResource[S, R any] struct {
	kind     string // the resource label of capkit's metrics
	validate func(S) error
	get      func(ctx context.Context, id string) (*R, error)
	find     func(ctx context.Context, tags map[string]string) ([]R, error)
	create   func(ctx context.Context, spec S, token string, tags map[string]string) (*R, error)
	del      func(ctx context.Context, id string) error
	id       func(*R) string
}

var _ reconcile.Resource[cloud.NetworkSpec, *cloud.Network] = (*cloudResource[cloud.NetworkSpec, cloud.Network])(nil)

// Kind names the kind of resource in capkit's metrics (reconcile.Kinded).
func (r *cloudResource[S, R]) Kind() string { return r.kind }

// Validate checks the request without calling the cloud.
func (r *cloudResource[S, R]) Validate(spec S) error { return r.validate(spec) }

// Get returns the resource and whether it exists; NotFound is not an error.
func (r *cloudResource[S, R]) Get(ctx context.Context, id string) (*R, bool, error) {
	obs, err := r.get(ctx, id)
	switch {
	case errors.Is(err, cloud.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, r.classify(err)
	}
	return obs, true, nil
}

// FindByTags returns the oldest resource carrying tags (memcloud lists them in creation order).
func (r *cloudResource[S, R]) FindByTags(ctx context.Context, tags map[string]string) (*R, bool, error) {
	found, err := r.find(ctx, tags)
	if err != nil || len(found) == 0 {
		return nil, false, r.classify(err)
	}
	return &found[0], true, nil
}

// Create creates the resource with the idempotency token and tags and returns it.
func (r *cloudResource[S, R]) Create(ctx context.Context, spec S, token string, tags map[string]string) (*R, error) {
	obs, err := r.create(ctx, spec, token, tags)
	if err != nil {
		return nil, r.classify(err)
	}
	return obs, nil
}

// Delete deletes the resource. NotFound is success; a delete refused because other resources depend on the
// resource is not an error either: the resource is still there, so reconcile.EnsureDeleted reports that it
// is not done yet, and the step looks again later.
func (r *cloudResource[S, R]) Delete(ctx context.Context, id string) error {
	err := r.del(ctx, id)
	if errors.Is(err, cloud.ErrNotFound) || errors.Is(err, cloud.ErrDependencyViolation) {
		return nil
	}
	return r.classify(err)
}

// ID returns the cloud ID of an observed resource ("" for none).
func (r *cloudResource[S, R]) ID(obs *R) string {
	if obs == nil {
		return ""
	}
	return r.id(obs)
}

// classify turns memcloud's sentinel errors into the error classes of package reconcile: parameters, quota
// and tokens are terminal; everything else (an injected fault, a lost response) is returned as it is and
// retried with backoff.
func (r *cloudResource[S, R]) classify(err error) error { return classify(err) }

// classify gives a cloud error its class for capkit's reconcilers: terminal when retrying cannot help,
// throttled (requeued after the cloud's hint, not a failure) when the rate limit refused the call.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cloud.ErrThrottled):
		retryAfter, _ := cloud.RetryAfter(err)
		return reconcile.Throttled(err, retryAfter)
	case errors.Is(err, cloud.ErrInvalidParameter):
		return reconcile.Terminal(reconcile.ReasonInvalidParameters, err)
	case errors.Is(err, cloud.ErrQuotaExceeded):
		return reconcile.Terminal(ReasonQuotaExceeded, err)
	case errors.Is(err, cloud.ErrTokenReused):
		return reconcile.Terminal(ReasonResourceDeleted, err)
	case errors.Is(err, cloud.ErrTokenMismatch):
		return reconcile.Terminal(ReasonTokenMismatch, err)
	}
	return err
}

// wait waits for the rate limiter of ctx (reconcile.WithRateLimiter) before a cloud call that does not go
// through reconcile.Ensure.
func wait(ctx context.Context) error {
	_, err := ratelimit.WaitFrom(ctx)
	return err
}

// Resources are memcloud's resource kinds as reconcile.Resources, for reconcile.Ensure and EnsureDeleted. The
// observation of each kind is the cloud's own type, so that a service reads what Ensure returns instead of
// reading the resource again.
type Resources struct {
	// Networks are the networks.
	Networks reconcile.Resource[cloud.NetworkSpec, *cloud.Network]
	// Subnets are the subnets.
	Subnets reconcile.Resource[cloud.SubnetSpec, *cloud.Subnet]
	// SecurityGroups are the security groups; they are also a reconcile.Updater: Ensure updates their ingress
	// rules in place when they differ from the spec (in any order), and reports a changed name, network or
	// description with reconcile.ReasonNeedsReplacement.
	SecurityGroups reconcile.Resource[cloud.SecurityGroupSpec, *cloud.SecurityGroup]
	// LoadBalancers are the load balancers.
	LoadBalancers reconcile.Resource[cloud.LoadBalancerSpec, *cloud.LoadBalancer]
	// Instances are the instances; they are also a reconcile.PendingReporter: Ensure waits for a pending
	// (booting) instance with ReasonInstancePending.
	Instances reconcile.Resource[cloud.InstanceSpec, *cloud.Instance]
	// InstanceGroups are the instance groups of machine pools.
	InstanceGroups reconcile.Resource[cloud.InstanceGroupSpec, *cloud.InstanceGroup]
}

// NewResources returns the resource kinds of c.
func NewResources(c *cloud.Cloud) Resources {
	return Resources{
		Networks: &cloudResource[cloud.NetworkSpec, cloud.Network]{
			kind: "network",
			get:  c.GetNetwork, find: c.FindNetworks, del: c.DeleteNetwork,
			id: func(n *cloud.Network) string { return n.ID },
			validate: func(s cloud.NetworkSpec) error {
				return errors.Join(required("name", s.Name), cidr("cidr", s.CIDR))
			},
			create: func(ctx context.Context, s cloud.NetworkSpec, token string, tags map[string]string) (*cloud.Network, error) {
				s.IdempotencyToken, s.Tags = token, tags
				return c.CreateNetwork(ctx, s)
			},
		},
		Subnets: &cloudResource[cloud.SubnetSpec, cloud.Subnet]{
			kind: "subnet",
			get:  c.GetSubnet, find: c.FindSubnets, del: c.DeleteSubnet,
			id: func(n *cloud.Subnet) string { return n.ID },
			validate: func(s cloud.SubnetSpec) error {
				return errors.Join(required("name", s.Name), required("networkID", s.NetworkID), cidr("cidr", s.CIDR))
			},
			create: func(ctx context.Context, s cloud.SubnetSpec, token string, tags map[string]string) (*cloud.Subnet, error) {
				s.IdempotencyToken, s.Tags = token, tags
				return c.CreateSubnet(ctx, s)
			},
		},
		SecurityGroups: newSecurityGroups(c),
		LoadBalancers: &cloudResource[cloud.LoadBalancerSpec, cloud.LoadBalancer]{
			kind: "load-balancer",
			get:  c.GetLoadBalancer, find: c.FindLoadBalancers, del: c.DeleteLoadBalancer,
			id: func(n *cloud.LoadBalancer) string { return n.ID },
			validate: func(s cloud.LoadBalancerSpec) error {
				var err error
				if s.Port < 0 || s.Port > 65535 {
					err = fmt.Errorf("port %d must be from 1 to 65535", s.Port)
				}
				return errors.Join(required("name", s.Name), required("networkID", s.NetworkID), err)
			},
			create: func(ctx context.Context, s cloud.LoadBalancerSpec, token string, tags map[string]string) (*cloud.LoadBalancer, error) {
				s.IdempotencyToken, s.Tags = token, tags
				return c.CreateLoadBalancer(ctx, s)
			},
		},
		Instances: newInstances(c),
		InstanceGroups: &cloudResource[cloud.InstanceGroupSpec, cloud.InstanceGroup]{
			kind: "instance-group",
			get:  c.GetInstanceGroup, find: c.FindInstanceGroups, del: c.DeleteInstanceGroup,
			id: func(g *cloud.InstanceGroup) string { return g.ID },
			validate: func(s cloud.InstanceGroupSpec) error {
				var errs []error
				if len(s.UserData) == 0 {
					errs = append(errs, errors.New("userData must not be empty"))
				}
				if s.Size < 0 {
					errs = append(errs, fmt.Errorf("size %d must not be negative", s.Size))
				}
				return errors.Join(append(errs, required("name", s.Name), required("subnetID", s.SubnetID),
					required("image", s.Image), required("flavor", s.Flavor))...)
			},
			create: func(ctx context.Context, s cloud.InstanceGroupSpec, token string, tags map[string]string) (*cloud.InstanceGroup, error) {
				s.IdempotencyToken, s.Tags = token, tags
				return c.CreateInstanceGroup(ctx, s)
			},
		},
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
