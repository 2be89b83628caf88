package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/controllers"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/manager"
)

// flags are the manager's command-line flags: capkit's standard ones and the target cluster's kubeconfig.
type flags struct {
	manager.Flags
	targetKubeconfig string
}

// provider is podcloud's part of the manager: its flags, types, controllers and webhooks.
func (f *flags) provider() manager.Provider {
	return manager.Provider{
		Name: "podcloud",
		Defaults: manager.Defaults{LeaderElectionID: "podcloud-controller-manager.podcloud.capkit.io",
			ResyncPeriod: controllers.DefaultResyncPeriod},
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.targetKubeconfig, "target-kubeconfig", "", "kubeconfig of the cluster the Pods run in (default: the management cluster)")
		},
		AddToScheme: v1beta2.AddToScheme,
		Setup:       f.setup,
	}
}

// setup registers the controllers, on the target cluster of --target-kubeconfig, and the webhooks.
func (f *flags) setup(mgr ctrl.Manager, opts []reconcile.Option) error {
	copts := []controllers.Option{controllers.WithReconcileOptions(opts...)}
	target, err := f.targetClient(mgr.GetScheme())
	if err != nil {
		return err
	}
	if target != nil {
		copts = append(copts, controllers.WithTarget(target))
	}
	if err := controllers.SetupWithManager(mgr, copts...); err != nil {
		return err
	}
	return webhooks.SetupWithManager(mgr)
}

// targetClient returns the uncached client of the target cluster, or nil for the management cluster.
func (f *flags) targetClient(scheme *runtime.Scheme) (client.Client, error) {
	if f.targetKubeconfig == "" {
		return nil, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", f.targetKubeconfig)
	if err != nil {
		return nil, fmt.Errorf("cannot load --target-kubeconfig %q: %w", f.targetKubeconfig, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("cannot create the client of the target cluster: %w", err)
	}
	return c, nil
}

func main() {
	var f flags
	os.Exit(manager.Main(os.Args[1:], &f.Flags, f.provider()))
}
