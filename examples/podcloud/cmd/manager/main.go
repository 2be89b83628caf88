package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/controllers"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
	"github.com/capkit/capkit/reconcile/manager"
)

// flags are the manager's command-line flags: capkit's standard ones and the target cluster's kubeconfig.
type flags struct {
	manager.Flags
	targetKubeconfig string
}

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	f.Bind(fs, manager.Defaults{LeaderElectionID: "podcloud-controller-manager.podcloud.capkit.io",
		ResyncPeriod: controllers.DefaultResyncPeriod})
	fs.StringVar(&f.targetKubeconfig, "target-kubeconfig", "", "kubeconfig of the cluster the Pods run in (default: the management cluster)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return f, f.Validate()
}

// targetClient returns the uncached client of the target cluster, or nil for the management cluster.
func (f flags) targetClient(scheme *runtime.Scheme) (client.Client, error) {
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
	f, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		os.Exit(2)
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&f.Zap)))
	if err := run(f); err != nil {
		ctrl.Log.Error(err, "manager stopped")
		os.Exit(1)
	}
}

func run(f flags) error {
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), v1beta2.AddToScheme(scheme)); err != nil {
		return fmt.Errorf("cannot build the scheme: %w", err)
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("cannot load the kubeconfig: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, f.Options(scheme))
	if err != nil {
		return fmt.Errorf("cannot create the manager: %w", err)
	}
	opts := []controllers.Option{controllers.WithWatchFilter(f.WatchFilter), controllers.WithPollInterval(f.PollInterval),
		controllers.WithResyncPeriod(f.ResyncPeriod)}
	target, err := f.targetClient(scheme)
	if err != nil {
		return err
	}
	if target != nil {
		opts = append(opts, controllers.WithTarget(target))
	}
	if err := controllers.SetupWithManager(mgr, opts...); err != nil {
		return err
	}
	if err := webhooks.SetupWithManager(mgr); err != nil {
		return err
	}
	if err := manager.AddChecks(mgr); err != nil {
		return err
	}
	ctrl.Log.Info("starting podcloud's manager", "namespace", f.Namespace, "watchFilter", f.WatchFilter, "target", f.targetKubeconfig)
	return mgr.Start(ctrl.SetupSignalHandler())
}
