package reconcile_test

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// Ensure creates a resource once, then finds it by its tracked ID; a lost ID is recovered by tags.
func ExampleEnsure() {
	ctx := context.Background()
	cloud := newFakeCloud() // an in-test IaaS implementing reconcile.Resource[netSpec]
	tracker := newFakeTracker()

	first, _ := reconcile.Ensure(ctx, tracker, "vpc", reconcile.Resource[netSpec](cloud), netSpec{CIDR: "10.0.0.0/16"})
	second, _ := reconcile.Ensure(ctx, tracker, "vpc", reconcile.Resource[netSpec](cloud), netSpec{CIDR: "10.0.0.0/16"})
	_ = tracker.DeleteResourceID("vpc") // status lost, e.g. by clusterctl move
	third, _ := reconcile.Ensure(ctx, tracker, "vpc", reconcile.Resource[netSpec](cloud), netSpec{CIDR: "10.0.0.0/16"})
	_, err := reconcile.Ensure(ctx, tracker, "subnet", reconcile.Resource[netSpec](cloud), netSpec{})

	fmt.Println(first.Action, first.ID)
	fmt.Println(second.Action, second.ID)
	fmt.Println(third.Action, third.ID)
	fmt.Println("networks:", cloud.count())
	fmt.Println("terminal:", reconcile.IsTerminal(err))
	// Output:
	// Created net-1
	// Found net-1
	// Adopted net-1
	// networks: 1
	// terminal: true
}

// A provider wires its services as ordered steps and registers the reconciler with the manager.
func ExampleNewMachineReconciler() {
	var mgr ctrl.Manager // from ctrl.NewManager in the provider's main
	type S = *scope.MachineScope[*testtypes.FooMachine]
	vm := reconcile.ServiceFuncs[S]{
		ReconcileFunc: func(ctx context.Context, s S) (reconcile.Result, error) {
			// ... Ensure the VM, s.SetProviderID, s.SetAddresses, s.SetProvisioned(true)
			return reconcile.Result{Done: true}, nil
		},
		DeleteFunc: func(ctx context.Context, s S) (reconcile.Result, error) {
			// ... EnsureDeleted the VM
			return reconcile.Result{Done: true}, nil
		},
	}
	r, err := reconcile.NewMachineReconciler(mgr.GetClient(),
		func() *testtypes.FooMachine { return &testtypes.FooMachine{} },
		[]reconcile.Step[S]{{Name: "VM", Service: vm}},
		reconcile.WithEventRecorder(mgr.GetEventRecorder("foo-controller")))
	if err != nil {
		panic(err)
	}
	if err := r.SetupWithManager(mgr); err != nil {
		panic(err)
	}
}
