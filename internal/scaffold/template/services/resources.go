package services

import (
	"errors"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"

	"github.com/capkit/capkit/internal/scaffold/template/cloud"
)

// Resource keys: the names under which the services record cloud IDs (status.resources, or spec.providerID
// for the instance) and tag the resources (ensure.TagResourceKey).
const (
	// KeyLoadBalancer is the key of a QuuxCluster's API server load balancer.
	KeyLoadBalancer = "load-balancer"
	// KeyInstance is the key of a QuuxMachine's instance; its ID lives in spec.providerID.
	KeyInstance = "instance"
)

// ReasonInstancePending is the reason of the InstanceReady condition while the instance boots.
const ReasonInstancePending = "InstancePending"

// notFound reports whether err means the resource is gone.
func notFound(err error) bool { return errors.Is(err, cloud.ErrNotFound) }

// classify gives a cloud error its class for capkit's reconcilers: terminal when retrying cannot help,
// transient (retried with backoff) otherwise.
func classify(err error) error {
	if errors.Is(err, cloud.ErrInvalidParameter) {
		return step.Terminal(conditions.ReasonInvalidParameters, err)
	}
	return err
}

// LoadBalancers returns the load balancers of c as a ensure.Resource for Ensure.
//
// Like Instances, it declares nothing of what the cloud guarantees about creates and searches, so Ensure takes the
// careful default: before each create it notes the create on the infra object (one more API write per create), and
// while the search may not list what a create made yet (up to a minute) it neither creates again nor concludes that
// a deleted resource is gone. When your cloud's SDK replaces cloud.Memory and you use a capkit release after v0.2.0,
// declare what the cloud does promise in ResourceFuncs.Guarantees (an idempotency token or unique names, a search
// that lists a resource as soon as its create returns, or its longest lag): Ensure then relies on exactly that.
func LoadBalancers(c cloud.LoadBalancers) ensure.Resource[cloud.LoadBalancerSpec, *cloud.LoadBalancer] {
	return ensure.NewResource(ensure.ResourceFuncs[cloud.LoadBalancerSpec, *cloud.LoadBalancer]{
		ResourceKind:   "LoadBalancer",
		ValidateFunc:   cloud.LoadBalancerSpec.Validate,
		GetFunc:        ensure.GoneIfNotFound(c.GetLoadBalancer, notFound),
		FindByTagsFunc: ensure.FindOldest(c.FindLoadBalancers, nil),
		CreateFunc:     c.CreateLoadBalancer,
		DeleteFunc:     ensure.IgnoreErrors(c.DeleteLoadBalancer, notFound),
		IDFunc:         func(lb *cloud.LoadBalancer) string { return lb.ID },
		ClassifyFunc:   classify,
	})
}

// Instances returns the instances of c as a ensure.Resource for Ensure; a pending instance is waited for. It
// declares nothing of the cloud's guarantees (see LoadBalancers).
func Instances(c cloud.Instances) ensure.Resource[cloud.InstanceSpec, *cloud.Instance] {
	return ensure.NewResource(ensure.ResourceFuncs[cloud.InstanceSpec, *cloud.Instance]{
		ResourceKind:   "Instance",
		ValidateFunc:   cloud.InstanceSpec.Validate,
		GetFunc:        ensure.GoneIfNotFound(c.GetInstance, notFound),
		FindByTagsFunc: ensure.FindOldest(c.FindInstances, nil),
		CreateFunc:     c.CreateInstance,
		DeleteFunc:     ensure.IgnoreErrors(c.DeleteInstance, notFound),
		IDFunc:         func(i *cloud.Instance) string { return i.ID },
		PendingFunc: func(i *cloud.Instance) (string, string, bool) {
			return ReasonInstancePending, "instance " + i.ID + " is booting", i.State == cloud.InstancePending
		},
		ClassifyFunc: classify,
	})
}
