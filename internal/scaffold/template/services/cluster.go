package services

import (
	"context"
	"errors"
	"fmt"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
	"github.com/capkit/capkit/internal/scaffold/template/cloud"
)

// errNilCloud is returned by the constructors given no cloud.
var errNilCloud = errors.New("cloud must not be nil")

// The services plug into capkit's reconcilers without glue.
var (
	_ reconcile.Service[scope.ClusterScoper[*v1beta2.QuuxCluster]] = (*LoadBalancer)(nil)
	_ reconcile.Service[scope.MachineScoper[*v1beta2.QuuxMachine]] = (*Instance)(nil)
)

// LoadBalancer is the step of a QuuxCluster: it creates the API server load balancer, sets
// spec.controlPlaneEndpoint to its host and port and marks the QuuxCluster provisioned.
type LoadBalancer struct {
	lbs ensure.Resource[cloud.LoadBalancerSpec, *cloud.LoadBalancer]
}

// NewLoadBalancer returns the load balancer service on c.
func NewLoadBalancer(c cloud.LoadBalancers) (*LoadBalancer, error) {
	if c == nil {
		return nil, fmt.Errorf("cannot create the load balancer service: %w", errNilCloud)
	}
	return &LoadBalancer{lbs: LoadBalancers(c)}, nil
}

// Reconcile ensures the load balancer exists and completes the QuuxCluster's contract fields.
func (l *LoadBalancer) Reconcile(ctx context.Context, s scope.ClusterScoper[*v1beta2.QuuxCluster]) (step.Result, error) {
	qc := s.InfraCluster()
	port := qc.Spec.LoadBalancerPort
	if port == 0 {
		port = v1beta2.DefaultLoadBalancerPort
	}
	res, err := ensure.Exists(ctx, s, KeyLoadBalancer, l.lbs,
		ensure.Given(cloud.LoadBalancerSpec{Name: s.Cluster().Name + "-apiserver", Port: port}))
	if err != nil || !res.Result.Done {
		return res.Result, err
	}
	if qc.Spec.ControlPlaneEndpoint.Host == "" {
		qc.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: res.Observed.Host, Port: res.Observed.Port}
		// The endpoint is set once: persist it now, so that a crash cannot lose it.
		if err := scope.PatchSpec(ctx, s); err != nil {
			return step.Result{}, err
		}
	}
	qc.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// Delete deletes the load balancer, recorded in status or found by its ownership tags.
func (l *LoadBalancer) Delete(ctx context.Context, s scope.ClusterScoper[*v1beta2.QuuxCluster]) (step.Result, error) {
	return ensure.Deleted(ctx, s, KeyLoadBalancer, l.lbs)
}
