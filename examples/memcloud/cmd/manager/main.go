package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/reconcile/manager"
)

// flags are the manager's command-line flags: capkit's standard ones, the in-memory cloud's seed and the
// namespace of the MemClusterIdentities' credentials Secrets.
type flags struct {
	manager.Flags
	cloudSeed         uint64
	identityNamespace string
}

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	f.Bind(fs, manager.Defaults{LeaderElectionID: "memcloud-controller-manager.memcloud.capkit.io"})
	fs.Uint64Var(&f.cloudSeed, "cloud-seed", cloud.DefaultSeed, "seed of the in-memory cloud's IDs")
	fs.StringVar(&f.identityNamespace, "identity-namespace", "", "namespace of the MemClusterIdentities' credentials Secrets, usually memcloud's own (empty: no identities)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return f, f.Validate()
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
	// The in-memory example cloud; a real provider creates its cloud SDK client here.
	c, err := cloud.New(cloud.WithSeed(f.cloudSeed))
	if err != nil {
		return err
	}
	limiter, err := f.RateLimiter()
	if err != nil {
		return err
	}
	opts := []controllers.Option{controllers.WithWatchFilter(f.WatchFilter), controllers.WithPollInterval(f.PollInterval)}
	if limiter != nil {
		opts = append(opts, controllers.WithRateLimiter(limiter))
	}
	if f.identityNamespace != "" {
		opts = append(opts, controllers.WithIdentities(f.identityNamespace, mgr.GetAPIReader()))
	}
	if err := controllers.SetupWithManager(mgr, c, opts...); err != nil {
		return err
	}
	if err := webhooks.SetupWithManager(mgr); err != nil {
		return err
	}
	if err := manager.AddChecks(mgr); err != nil {
		return err
	}
	ctrl.Log.Info("starting memcloud's manager", "namespace", f.Namespace, "watchFilter", f.WatchFilter)
	return mgr.Start(ctrl.SetupSignalHandler())
}
