// Package manager runs a Cluster API provider's controller manager from the standard command-line flags. It is what
// every provider's cmd/manager writes again: the standard command-line flags of a Cluster API provider's controller
// manager (namespace, watch filter, leader election, metrics and health endpoints, webhook server, poll and resync
// periods, cloud rate limit, max concurrent reconciles, logging), their validation, the controller-runtime options and
// the capkit reconcile options they make, the health and readiness checks, and the run of the manager itself.
//
// A provider's main.go declares only what is its own: its flags, its API types, and how its controllers and
// webhooks are set up; Main does the rest (Parse, logging, Run: scheme, kubeconfig, NewManager with
// Flags.Options, Setup with Flags.ReconcileOptions, the /healthz and /readyz checks, Start until SIGTERM).
// A provider's cmd/manager/main.go:
//
//	// Command manager is the controller manager of a provider of the mycloud cloud.
//	package main
//
//	import (
//		"flag"
//		"os"
//
//		ctrl "sigs.k8s.io/controller-runtime"
//
//		"example.com/myprovider/api/v1beta2"
//		"example.com/myprovider/controllers"
//		"example.com/myprovider/mycloud"
//		"github.com/capkit/capkit/reconcile"
//		"github.com/capkit/capkit/reconcile/manager"
//	)
//
//	type flags struct {
//		manager.Flags
//		endpoint string
//	}
//
//	func (f *flags) provider() manager.Provider {
//		return manager.Provider{
//			Name:        "mycloud",
//			Defaults:    manager.Defaults{LeaderElectionID: "mycloud-controller-manager.mycloud.example.com"},
//			Flags:       func(fs *flag.FlagSet) { fs.StringVar(&f.endpoint, "endpoint", "", "the cloud's API endpoint") },
//			AddToScheme: v1beta2.AddToScheme,
//			Setup: func(mgr ctrl.Manager, opts []reconcile.Option) error {
//				// opts: watch filter, resync period, poll interval, concurrency, one shared cloud rate limiter
//				c := mycloud.New() // a real cloud's client takes f.endpoint
//				return controllers.SetupWithManager(mgr, c, opts...)
//			},
//		}
//	}
//
//	func main() {
//		var f flags
//		os.Exit(manager.Main(os.Args[1:], &f.Flags, f.provider()))
//	}
//
// Its imports of example.com/myprovider are the README's provider (internal/docstest/myprovider), which has no
// webhooks; a provider with webhooks sets them up in Setup too, after its controllers.
//
// A test parses the provider's flags with f.Parse(args, p.Defaults, p.Flags).
//
// A main that builds its manager by hand uses the same parts: Flags.Parse, ctrl.NewManager with
// Flags.Options, Flags.ReconcileOptions for its reconcilers, and AddChecks before mgr.Start.
package manager
