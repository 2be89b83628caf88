package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
)

// flags are the manager's command-line flags.
type flags struct {
	namespace, watchFilter              string
	leaderElect                         bool
	leaderElectionID                    string
	metricsAddr, probeAddr, webhookCert string
	webhookPort                         int
	pollInterval                        time.Duration
	cloudSeed                           uint64
	zap                                 zap.Options
}

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.StringVar(&f.namespace, "namespace", "", "watch only this namespace (default: all)")
	fs.StringVar(&f.watchFilter, "watch-filter", "", "reconcile only objects with the label cluster.x-k8s.io/watch-filter set to this value")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect a leader, so that only one replica reconciles")
	fs.StringVar(&f.leaderElectionID, "leader-election-id", "memcloud-controller-manager.memcloud.capkit.io", "name of the leader election lease")
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", "0", "address of the metrics endpoint, \"0\" to disable")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", ":9440", "address of the /healthz and /readyz endpoints")
	fs.IntVar(&f.webhookPort, "webhook-port", 9443, "port of the webhook server")
	fs.StringVar(&f.webhookCert, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "folder holding tls.crt and tls.key of the webhook server")
	fs.DurationVar(&f.pollInterval, "poll-interval", 5*time.Second, "how long to wait before looking again at a booting instance or a blocked delete")
	fs.Uint64Var(&f.cloudSeed, "cloud-seed", cloud.DefaultSeed, "seed of the in-memory cloud's IDs")
	f.zap.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case f.webhookPort < 1 || f.webhookPort > 65535:
		return f, fmt.Errorf("invalid --webhook-port %d: want 1 to 65535", f.webhookPort)
	case f.pollInterval <= 0:
		return f, fmt.Errorf("invalid --poll-interval %s: must be positive", f.pollInterval)
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return f, nil
}

// options returns the manager's options for f.
func (f flags) options(scheme *runtime.Scheme) ctrl.Options {
	o := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: f.metricsAddr},
		HealthProbeBindAddress: f.probeAddr,
		LeaderElection:         f.leaderElect,
		LeaderElectionID:       f.leaderElectionID,
		WebhookServer:          webhook.NewServer(webhook.Options{Port: f.webhookPort, CertDir: f.webhookCert}),
		// The core Cluster and Machine are read as unstructured objects (capkit does not import Cluster API):
		// serve them from the informer cache like typed objects, not with a live read per reconcile.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	}
	if f.namespace != "" {
		o.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{f.namespace: {}}}
	}
	return o
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
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&f.zap)))
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
	mgr, err := ctrl.NewManager(cfg, f.options(scheme))
	if err != nil {
		return fmt.Errorf("cannot create the manager: %w", err)
	}
	// The in-memory example cloud; a real provider creates its cloud SDK client here.
	c, err := cloud.New(cloud.WithSeed(f.cloudSeed))
	if err != nil {
		return err
	}
	if err := controllers.SetupWithManager(mgr, c, controllers.WithWatchFilter(f.watchFilter),
		controllers.WithPollInterval(f.pollInterval)); err != nil {
		return err
	}
	if err := webhooks.SetupWithManager(mgr); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("cannot add the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("cannot add the readiness check: %w", err)
	}
	ctrl.Log.Info("starting memcloud's manager", "namespace", f.namespace, "watchFilter", f.watchFilter)
	return mgr.Start(ctrl.SetupSignalHandler())
}
