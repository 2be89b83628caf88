// Command manager is the controller manager of the documentation's provider.
package main

import (
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/internal/docstest/myprovider/api/v1beta2"
	"github.com/capkit/capkit/internal/docstest/myprovider/controllers"
	"github.com/capkit/capkit/internal/docstest/myprovider/mycloud"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/manager"
)

// snippet:start main

func main() {
	var f manager.Flags // --namespace, --watch-filter, --leader-elect, --cloud-qps, --max-concurrent-reconciles, ...
	os.Exit(manager.Main(os.Args[1:], &f, manager.Provider{
		Name:        "myprovider",
		Defaults:    manager.Defaults{LeaderElectionID: "myprovider-controller-manager.myprovider.example.com"},
		AddToScheme: v1beta2.AddToScheme,
		Setup: func(mgr ctrl.Manager, opts []reconcile.Option) error { // opts: one shared cloud rate limiter, ...
			return controllers.SetupWithManager(mgr, mycloud.New(), opts...)
		},
	}))
}

// snippet:end main
