package controllers

import (
	"errors"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
	"github.com/capkit/capkit/internal/scaffold/template/cloud"
	"github.com/capkit/capkit/internal/scaffold/template/services"
)

// Step names of the reconcilers; each step writes the condition <name>Ready.
const (
	StepLoadBalancer = "LoadBalancer"
	StepInstance     = "Instance"
)

// DefaultPollInterval is how long a step waits before looking again at a resource that is not ready.
const DefaultPollInterval = 5 * time.Second

// reconcileOptions returns the options of a reconciler with finalizer: the provider's, then opts, which win.
func reconcileOptions(finalizer string, opts []reconcile.Option) []reconcile.Option {
	return append([]reconcile.Option{
		reconcile.WithPollInterval(DefaultPollInterval),
		reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2)),
		reconcile.WithFinalizer(finalizer),
	}, opts...)
}

// NewClusterReconciler returns the QuuxCluster reconciler on cl, reading and writing through c.
func NewClusterReconciler(c client.Client, cl cloud.Cloud, opts ...reconcile.Option) (*reconcile.ClusterReconciler[*v1beta2.QuuxCluster], error) {
	lb, err := services.NewLoadBalancer(cl)
	if err != nil {
		return nil, err
	}
	steps := []reconcile.Step[scope.ClusterScoper[*v1beta2.QuuxCluster]]{{Name: StepLoadBalancer, Service: lb}}
	return reconcile.NewClusterReconcilerFor(c, &v1beta2.QuuxCluster{}, steps,
		reconcileOptions(v1beta2.QuuxClusterFinalizer, opts)...)
}

// NewMachineReconciler returns the QuuxMachine reconciler on cl, reading and writing through c.
func NewMachineReconciler(c client.Client, cl cloud.Cloud, opts ...reconcile.Option) (*reconcile.MachineReconciler[*v1beta2.QuuxMachine], error) {
	inst, err := services.NewInstance(cl)
	if err != nil {
		return nil, err
	}
	steps := []reconcile.Step[scope.MachineScoper[*v1beta2.QuuxMachine]]{{Name: StepInstance, Service: inst}}
	return reconcile.NewMachineReconcilerFor(c, &v1beta2.QuuxMachine{}, steps,
		reconcileOptions(v1beta2.QuuxMachineFinalizer, opts)...)
}

// SetupWithManager registers the provider's controllers with mgr, on cl. The manager's scheme must hold
// the v1beta2 types; opts go to every reconciler (e.g. the flags' reconcile.Options).
func SetupWithManager(mgr ctrl.Manager, cl cloud.Cloud, opts ...reconcile.Option) error {
	if mgr == nil {
		return errors.New("cannot set up the controllers: manager is nil")
	}
	c := mgr.GetClient()
	cr, err := NewClusterReconciler(c, cl, opts...)
	if err != nil {
		return err
	}
	if err := cr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the QuuxCluster controller: %w", err)
	}
	mr, err := NewMachineReconciler(c, cl, opts...)
	if err != nil {
		return err
	}
	if err := mr.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the QuuxMachine controller: %w", err)
	}
	// +capkit:scaffold:controllers
	return nil
}
