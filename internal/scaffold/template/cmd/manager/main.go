// Command manager is the quux provider's controller manager: capkit's standard flags (metrics, health
// probes, leader election, webhooks, rate limits), the provider's types, controllers and webhooks.
package main

import (
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/manager"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
	"github.com/capkit/capkit/internal/scaffold/template/cloud"
	"github.com/capkit/capkit/internal/scaffold/template/controllers"
	"github.com/capkit/capkit/internal/scaffold/template/webhooks"
)

// provider is the quux provider's part of the manager.
func provider() manager.Provider {
	return manager.Provider{
		Name:        "quux",
		Defaults:    manager.Defaults{LeaderElectionID: "quux-controller-manager.sample.capkit.io"},
		AddToScheme: v1beta2.AddToScheme,
		Setup:       setup,
	}
}

// setup creates the cloud client and registers the controllers and webhooks. Replace cloud.NewMemory with
// your cloud SDK's client (its endpoint and credentials from flags of Provider.Flags).
func setup(mgr ctrl.Manager, opts []reconcile.Option) error {
	if err := controllers.SetupWithManager(mgr, cloud.NewMemory(), opts...); err != nil {
		return err
	}
	return webhooks.SetupWithManager(mgr)
}

func main() {
	var f manager.Flags
	os.Exit(manager.Main(os.Args[1:], &f, provider()))
}
