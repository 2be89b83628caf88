// Package controllers wires the documentation's provider's services into capkit's generic reconcilers.
package controllers

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/internal/docstest/myprovider/api/v1beta2"
	"github.com/capkit/capkit/internal/docstest/myprovider/mycloud"
	"github.com/capkit/capkit/internal/docstest/myprovider/services"
	"github.com/capkit/capkit/reconcile"
)

// snippet:start wiring

// SetupWithManager registers the MyMachine reconciler; opts are the manager's (Flags.ReconcileOptions).
func SetupWithManager(mgr ctrl.Manager, cloud *mycloud.Client, opts ...reconcile.Option) error {
	r, err := reconcile.NewMachineReconcilerFor(mgr.GetClient(), &v1beta2.MyMachine{},
		[]reconcile.Step[services.S]{{Name: "VM", Service: services.VM(services.VMs(cloud))}}, // condition VMReady
		opts...) // WithPollInterval (the poll interval of the steps and of ensure), WithRateLimiter, WithMaxConcurrentReconciles, ...
	if err != nil {
		return err
	}
	return r.SetupWithManager(mgr) // events go to the manager's recorder
}

// snippet:end wiring
