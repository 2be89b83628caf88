package main

import (
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/controllers"
	"github.com/capkit/capkit/examples/vspherecloud/webhooks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/manager"
)

// provider is vspherecloud's part of the manager: its types, controllers and webhooks.
func provider() manager.Provider {
	return manager.Provider{
		Name: "vspherecloud",
		Defaults: manager.Defaults{
			LeaderElectionID: "vspherecloud-controller-manager.vspherecloud.capkit.io",
			PollInterval:     controllers.DefaultPollInterval,
		},
		AddToScheme: v1beta2.AddToScheme,
		Setup: func(mgr ctrl.Manager, opts []reconcile.Option) error {
			if err := controllers.SetupWithManager(mgr, controllers.WithReconcileOptions(opts...)); err != nil {
				return err
			}
			return webhooks.SetupWithManager(mgr)
		},
	}
}

func main() {
	var f manager.Flags
	os.Exit(manager.Main(os.Args[1:], &f, provider()))
}
