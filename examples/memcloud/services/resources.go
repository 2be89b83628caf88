package services

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile"
)

// Reasons of the step conditions memcloud's services write, besides those of package reconcile.
const (
	// ReasonQuotaExceeded: the cloud refused a create because a quota is used up; raise it.
	ReasonQuotaExceeded = "QuotaExceeded"
	// ReasonResourceDeleted: a resource this object created was deleted outside the controller, and its
	// idempotency token cannot create it again.
	ReasonResourceDeleted = "ResourceDeletedOutOfBand"
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

// cloudResource adapts one kind of memcloud resource to reconcile.Resource. S is the create request of the
// kind (cloud.NetworkSpec, ...), R the resource.
type cloudResource[S, R any] struct {
	validate func(S) error
	get      func(ctx context.Context, id string) (*R, error)
	find     func(ctx context.Context, tags map[string]string) ([]R, error)
	create   func(ctx context.Context, spec S, token string, tags map[string]string) (*R, error)
	del      func(ctx context.Context, id string) error
	id       func(R) string
}

var _ reconcile.Resource[cloud.NetworkSpec] = (*cloudResource[cloud.NetworkSpec, cloud.Network])(nil)

// Validate checks the request without calling the cloud.
func (r *cloudResource[S, R]) Validate(spec S) error { return r.validate(spec) }

// Get reports whether the resource exists; NotFound is not an error.
func (r *cloudResource[S, R]) Get(ctx context.Context, id string) (bool, error) {
	_, err := r.get(ctx, id)
	if errors.Is(err, cloud.ErrNotFound) {
		return false, nil
	}
	return err == nil, r.classify(err)
}

// FindByTags returns the oldest resource carrying tags.
func (r *cloudResource[S, R]) FindByTags(ctx context.Context, tags map[string]string) (string, bool, error) {
	found, err := r.find(ctx, tags)
	if err != nil || len(found) == 0 {
		return "", false, r.classify(err)
	}
	return r.id(found[0]), true, nil
}

// Create creates the resource with the idempotency token and tags.
func (r *cloudResource[S, R]) Create(ctx context.Context, spec S, token string, tags map[string]string) (string, error) {
	res, err := r.create(ctx, spec, token, tags)
	if err != nil {
		return "", r.classify(err)
	}
	return r.id(*res), nil
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

// classify turns memcloud's sentinel errors into the error classes of package reconcile: parameters, quota
// and tokens are terminal; everything else (an injected fault, a lost response) is returned as it is and
// retried with backoff.
func (r *cloudResource[S, R]) classify(err error) error {
	switch {
	case err == nil:
		return nil
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

// Resources are memcloud's resource kinds as reconcile.Resources, for reconcile.Ensure and EnsureDeleted.
type Resources struct {
	// Networks are the networks.
	Networks reconcile.Resource[cloud.NetworkSpec]
	// Subnets are the subnets.
	Subnets reconcile.Resource[cloud.SubnetSpec]
	// SecurityGroups are the security groups.
	SecurityGroups reconcile.Resource[cloud.SecurityGroupSpec]
	// LoadBalancers are the load balancers.
	LoadBalancers reconcile.Resource[cloud.LoadBalancerSpec]
	// Instances are the instances.
	Instances reconcile.Resource[cloud.InstanceSpec]
}

// NewResources returns the resource kinds of c.
func NewResources(c *cloud.Cloud) Resources {
	return Resources{
		Networks: &cloudResource[cloud.NetworkSpec, cloud.Network]{
			get: c.GetNetwork, find: c.FindNetworks, del: c.DeleteNetwork,
			id: func(n cloud.Network) string { return n.ID },
			validate: func(s cloud.NetworkSpec) error {
				return errors.Join(required("name", s.Name), cidr("cidr", s.CIDR))
			},
			create: func(ctx context.Context, s cloud.NetworkSpec, token string, tags map[string]string) (*cloud.Network, error) {
				s.IdempotencyToken, s.Tags = token, tags
				return c.CreateNetwork(ctx, s)
			},
		},
		Subnets: &cloudResource[cloud.SubnetSpec, cloud.Subnet]{
			get: c.GetSubnet, find: c.FindSubnets, del: c.DeleteSubnet,
			id: func(n cloud.Subnet) string { return n.ID },
			validate: func(s cloud.SubnetSpec) error {
				return errors.Join(required("name", s.Name), required("networkID", s.NetworkID), cidr("cidr", s.CIDR))
			},
			create: func(ctx context.Context, s cloud.SubnetSpec, token string, tags map[string]string) (*cloud.Subnet, error) {
				s.IdempotencyToken, s.Tags = token, tags
				return c.CreateSubnet(ctx, s)
			},
		},
		SecurityGroups: &cloudResource[cloud.SecurityGroupSpec, cloud.SecurityGroup]{
			get: c.GetSecurityGroup, find: c.FindSecurityGroups, del: c.DeleteSecurityGroup,
			id: func(n cloud.SecurityGroup) string { return n.ID },
			validate: func(s cloud.SecurityGroupSpec) error {
				return errors.Join(required("name", s.Name), required("networkID", s.NetworkID))
			},
			create: func(ctx context.Context, s cloud.SecurityGroupSpec, token string, tags map[string]string) (*cloud.SecurityGroup, error) {
				s.IdempotencyToken, s.Tags = token, tags
				return c.CreateSecurityGroup(ctx, s)
			},
		},
		LoadBalancers: &cloudResource[cloud.LoadBalancerSpec, cloud.LoadBalancer]{
			get: c.GetLoadBalancer, find: c.FindLoadBalancers, del: c.DeleteLoadBalancer,
			id: func(n cloud.LoadBalancer) string { return n.ID },
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
		Instances: &cloudResource[cloud.InstanceSpec, cloud.Instance]{
			get: c.GetInstance, find: c.FindInstances, del: c.DeleteInstance,
			id: func(n cloud.Instance) string { return n.ID },
			validate: func(s cloud.InstanceSpec) error {
				var err error
				if len(s.UserData) == 0 {
					err = errors.New("userData must not be empty")
				}
				return errors.Join(required("name", s.Name), required("subnetID", s.SubnetID),
					required("image", s.Image), required("flavor", s.Flavor), err)
			},
			create: func(ctx context.Context, s cloud.InstanceSpec, token string, tags map[string]string) (*cloud.Instance, error) {
				s.IdempotencyToken, s.Tags = token, tags
				return c.CreateInstance(ctx, s)
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
