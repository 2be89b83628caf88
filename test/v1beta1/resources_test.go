package v1beta1_test

import (
	"context"
	"errors"
	"strings"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
)

// cloudResource adapts one kind of memcloud resource to ensure.Resource: S is its create request, R the
// resource. Bad parameters are terminal, everything else the cloud returns is transient.
type cloudResource[S, R any] struct {
	get    func(ctx context.Context, id string) (*R, error)
	find   func(ctx context.Context, tags map[string]string) ([]R, error)
	create func(ctx context.Context, spec S, token string, tags map[string]string) (*R, error)
	del    func(ctx context.Context, id string) error
	id     func(*R) string
}

// Validate accepts every request: memcloud validates it, and an invalid one is terminal (see classify).
func (r *cloudResource[S, R]) Validate(S) error { return nil }

// ID returns the resource's ID.
func (r *cloudResource[S, R]) ID(res *R) string { return r.id(res) }

// Get returns the resource; NotFound is not an error.
func (r *cloudResource[S, R]) Get(ctx context.Context, id string) (*R, bool, error) {
	res, err := r.get(ctx, id)
	if errors.Is(err, cloud.ErrNotFound) {
		return nil, false, nil
	}
	return res, err == nil, classify(err)
}

// FindByTags returns the oldest resource carrying tags.
func (r *cloudResource[S, R]) FindByTags(ctx context.Context, tags map[string]string) (*R, bool, error) {
	found, err := r.find(ctx, tags)
	if err != nil || len(found) == 0 {
		return nil, false, classify(err)
	}
	return &found[0], true, nil
}

// Create creates the resource with the idempotency token and the tags.
func (r *cloudResource[S, R]) Create(ctx context.Context, spec S, token string, tags map[string]string) (*R, error) {
	res, err := r.create(ctx, spec, token, tags)
	return res, classify(err)
}

// Delete deletes the resource; one already gone is not an error.
func (r *cloudResource[S, R]) Delete(ctx context.Context, id string) error {
	if err := r.del(ctx, id); err != nil && !errors.Is(err, cloud.ErrNotFound) {
		return classify(err)
	}
	return nil
}

// Guarantees declares what memcloud promises unless it was created with cloud.WithoutTokens, which the clouds of
// this package are not: a create answers a token it has seen with the resource it made for it. Whether its search
// lags depends on the cloud's options, so it is not declared, and ensure notes each create before calling the
// cloud.
func (r *cloudResource[S, R]) Guarantees() ensure.Guarantees {
	return ensure.Guarantees{Idempotency: ensure.IdempotentByToken}
}

func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cloud.ErrInvalidParameter), errors.Is(err, cloud.ErrTokenMismatch):
		return step.Terminal(conditions.ReasonInvalidParameters, err)
	default:
		return err
	}
}

func networkResource(cl *cloud.Cloud) ensure.Resource[cloud.NetworkSpec, *cloud.Network] {
	return &cloudResource[cloud.NetworkSpec, cloud.Network]{
		get: cl.GetNetwork, find: cl.FindNetworks, del: cl.DeleteNetwork,
		create: func(ctx context.Context, s cloud.NetworkSpec, token string, tags map[string]string) (*cloud.Network, error) {
			s.IdempotencyToken, s.Tags = token, tags
			return cl.CreateNetwork(ctx, s)
		},
		id: func(n *cloud.Network) string { return n.ID },
	}
}

func subnetResource(cl *cloud.Cloud) ensure.Resource[cloud.SubnetSpec, *cloud.Subnet] {
	return &cloudResource[cloud.SubnetSpec, cloud.Subnet]{
		get: cl.GetSubnet, find: cl.FindSubnets, del: cl.DeleteSubnet,
		create: func(ctx context.Context, s cloud.SubnetSpec, token string, tags map[string]string) (*cloud.Subnet, error) {
			s.IdempotencyToken, s.Tags = token, tags
			return cl.CreateSubnet(ctx, s)
		},
		id: func(n *cloud.Subnet) string { return n.ID },
	}
}

func loadBalancerResource(cl *cloud.Cloud) ensure.Resource[cloud.LoadBalancerSpec, *cloud.LoadBalancer] {
	return &cloudResource[cloud.LoadBalancerSpec, cloud.LoadBalancer]{
		get: cl.GetLoadBalancer, find: cl.FindLoadBalancers, del: cl.DeleteLoadBalancer,
		create: func(ctx context.Context, s cloud.LoadBalancerSpec, token string, tags map[string]string) (*cloud.LoadBalancer, error) {
			s.IdempotencyToken, s.Tags = token, tags
			return cl.CreateLoadBalancer(ctx, s)
		},
		id: func(n *cloud.LoadBalancer) string { return n.ID },
	}
}

func instanceResource(cl *cloud.Cloud) ensure.Resource[cloud.InstanceSpec, *cloud.Instance] {
	return &cloudResource[cloud.InstanceSpec, cloud.Instance]{
		get: cl.GetInstance, find: cl.FindInstances, del: cl.DeleteInstance,
		create: func(ctx context.Context, s cloud.InstanceSpec, token string, tags map[string]string) (*cloud.Instance, error) {
			s.IdempotencyToken, s.Tags = token, tags
			return cl.CreateInstance(ctx, s)
		},
		id: func(n *cloud.Instance) string { return n.ID },
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
