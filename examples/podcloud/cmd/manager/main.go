package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/controllers"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
)

// flags are the manager's command-line flags.
type flags struct {
	namespace, watchFilter, targetKubeconfig string
	leaderElect                              bool
	leaderElectionID                         string
	metricsAddr, probeAddr, webhookCert      string
	webhookPort                              int
	pollInterval, resyncPeriod               time.Duration
	zap                                      zap.Options
}

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.StringVar(&f.targetKubeconfig, "target-kubeconfig", "", "kubeconfig of the cluster the Pods run in (default: the management cluster)")
	fs.StringVar(&f.namespace, "namespace", "", "watch only this namespace of the management cluster (default: all)")
	fs.StringVar(&f.watchFilter, "watch-filter", "", "reconcile only objects with the label cluster.x-k8s.io/watch-filter set to this value")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect a leader, so that only one replica reconciles")
	fs.StringVar(&f.leaderElectionID, "leader-election-id", "podcloud-controller-manager.podcloud.capkit.io", "name of the leader election lease")
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", "0", "address of the metrics endpoint, \"0\" to disable")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", ":9440", "address of the /healthz and /readyz endpoints")
	fs.IntVar(&f.webhookPort, "webhook-port", 9443, "port of the webhook server")
	fs.StringVar(&f.webhookCert, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "folder holding tls.crt and tls.key of the webhook server")
	fs.DurationVar(&f.pollInterval, "poll-interval", 5*time.Second, "how long to wait before looking again at a Pod that is not running or an object being deleted")
	fs.DurationVar(&f.resyncPeriod, "resync-period", controllers.DefaultResyncPeriod, "how often a provisioned machine looks at its Pod again, to find one deleted or failed behind podcloud's back")
	f.zap.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case f.webhookPort < 1 || f.webhookPort > 65535:
		return f, fmt.Errorf("invalid --webhook-port %d: want 1 to 65535", f.webhookPort)
	case f.pollInterval <= 0:
		return f, fmt.Errorf("invalid --poll-interval %s: must be positive", f.pollInterval)
	case f.resyncPeriod <= 0:
		return f, fmt.Errorf("invalid --resync-period %s: must be positive", f.resyncPeriod)
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
		// The core Cluster and Machine are read as unstructured objects: serve them from the informer cache.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	}
	if f.namespace != "" {
		o.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{f.namespace: {}}}
	}
	return o
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
	opts := []controllers.Option{controllers.WithWatchFilter(f.watchFilter), controllers.WithPollInterval(f.pollInterval),
		controllers.WithResyncPeriod(f.resyncPeriod)}
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
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("cannot add the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("cannot add the readiness check: %w", err)
	}
	ctrl.Log.Info("starting podcloud's manager", "namespace", f.namespace, "watchFilter", f.watchFilter, "target", f.targetKubeconfig)
	return mgr.Start(ctrl.SetupSignalHandler())
}
