package main

import (
	"flag"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/controllers"
	"github.com/capkit/capkit/examples/vspherecloud/webhooks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/manager"
)

// flags are the manager's command-line flags: capkit's standard ones and the namespace of the
// VSphereClusterIdentities' credentials Secrets.
type flags struct {
	manager.Flags
	identityNamespace string
}

// provider is vspherecloud's part of the manager: its flags, types, controllers and webhooks.
func (f *flags) provider() manager.Provider {
	return manager.Provider{
		Name: "vspherecloud",
		Defaults: manager.Defaults{
			LeaderElectionID: "vspherecloud-controller-manager.vspherecloud.capkit.io",
			PollInterval:     controllers.DefaultPollInterval,
		},
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.identityNamespace, "identity-namespace", "", "namespace of the VSphereClusterIdentities' credentials Secrets, usually vspherecloud's own (empty: no identities)")
		},
		AddToScheme: v1beta2.AddToScheme,
		Setup:       f.setup,
	}
}

// setup registers the controllers, with identities when --identity-namespace is set, and the webhooks.
func (f *flags) setup(mgr ctrl.Manager, opts []reconcile.Option) error {
	copts := []controllers.Option{controllers.WithReconcileOptions(opts...)}
	if f.identityNamespace != "" {
		copts = append(copts, controllers.WithIdentities(f.identityNamespace))
	}
	if err := controllers.SetupWithManager(mgr, copts...); err != nil {
		return err
	}
	return webhooks.SetupWithManager(mgr)
}

func main() {
	var f flags
	os.Exit(manager.Main(os.Args[1:], &f.Flags, f.provider()))
}
