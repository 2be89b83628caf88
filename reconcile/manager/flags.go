package manager

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile"
)

// Flags are the standard flags of a provider's controller manager.
type Flags struct {
	// Namespace limits the manager to one namespace of the management cluster (--namespace); empty: all.
	Namespace string
	// WatchFilter reconciles only objects with the cluster.x-k8s.io/watch-filter label of this value.
	WatchFilter string
	// LeaderElect and LeaderElectionID configure leader election.
	LeaderElect      bool
	LeaderElectionID string
	// MetricsAddr and ProbeAddr are the addresses of the metrics and health endpoints ("0" disables).
	MetricsAddr, ProbeAddr string
	// WebhookPort and WebhookCertDir configure the webhook server.
	WebhookPort    int
	WebhookCertDir string
	// PollInterval is how long a step that is not done waits before it looks again.
	PollInterval time.Duration
	// ResyncPeriod is how often a reconcile whose steps are done comes back (reconcile.WithResyncPeriod);
	// zero turns it off.
	ResyncPeriod time.Duration
	// CloudQPS and CloudBurst are the rate limit of the provider's cloud calls per account (--cloud-qps,
	// --cloud-burst): a token bucket that every reconciler of the manager shares (RateLimiter). Zero QPS: no
	// limit.
	CloudQPS   float64
	CloudBurst int
	// MaxConcurrentReconciles is how many objects of one kind each reconciler works on at once
	// (--max-concurrent-reconciles, reconcile.WithMaxConcurrentReconciles).
	MaxConcurrentReconciles int
	// Zap holds the logging flags (--zap-log-level, ...).
	Zap zap.Options
}

// Defaults are the provider-specific defaults of Bind.
type Defaults struct {
	// LeaderElectionID is the name of the leader election lease. Required.
	LeaderElectionID string
	// PollInterval is the default of --poll-interval; 5s when zero.
	PollInterval time.Duration
	// ResyncPeriod is the default of --resync-period; zero: off unless the flag is given.
	ResyncPeriod time.Duration
}

// Bind registers the flags on fs with d's defaults.
func (f *Flags) Bind(fs *flag.FlagSet, d Defaults) {
	if d.PollInterval <= 0 {
		d.PollInterval = 5 * time.Second
	}
	fs.StringVar(&f.Namespace, "namespace", "", "watch only this namespace of the management cluster (default: all)")
	fs.StringVar(&f.WatchFilter, "watch-filter", "", "reconcile only objects with the label cluster.x-k8s.io/watch-filter set to this value")
	fs.BoolVar(&f.LeaderElect, "leader-elect", false, "elect a leader, so that only one replica reconciles")
	fs.StringVar(&f.LeaderElectionID, "leader-election-id", d.LeaderElectionID, "name of the leader election lease")
	fs.StringVar(&f.MetricsAddr, "metrics-bind-address", "0", "address of the metrics endpoint, \"0\" to disable")
	fs.StringVar(&f.ProbeAddr, "health-probe-bind-address", ":9440", "address of the /healthz and /readyz endpoints")
	fs.IntVar(&f.WebhookPort, "webhook-port", 9443, "port of the webhook server")
	fs.StringVar(&f.WebhookCertDir, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "folder holding tls.crt and tls.key of the webhook server")
	fs.DurationVar(&f.PollInterval, "poll-interval", d.PollInterval, "how long a step that is not done waits before it looks again")
	fs.DurationVar(&f.ResyncPeriod, "resync-period", d.ResyncPeriod, "how often a reconciled object looks at its cloud resources again (0: only on events)")
	fs.Float64Var(&f.CloudQPS, "cloud-qps", 0, "cloud calls per second per cloud account, shared by every controller (0: no limit)")
	fs.IntVar(&f.CloudBurst, "cloud-burst", 10, "cloud calls that may go at once above --cloud-qps")
	fs.IntVar(&f.MaxConcurrentReconciles, "max-concurrent-reconciles", 10, "how many objects of one kind each controller reconciles at once")
	f.Zap.BindFlags(fs)
}

// RateLimiter returns the token buckets of --cloud-qps and --cloud-burst, to pass to every reconciler with
// reconcile.WithRateLimiter; nil without --cloud-qps.
func (f *Flags) RateLimiter() (*ratelimit.Limiters, error) {
	if f.CloudQPS == 0 {
		return nil, nil
	}
	return ratelimit.New(f.CloudQPS, f.CloudBurst)
}

// ReconcileOptions returns the capkit reconcile options of the flags, to pass to every reconciler of the
// manager, followed by extra: the watch filter, the resync period, the poll interval as the default requeue,
// the max concurrent reconciles and, with --cloud-qps, one rate limiter that all the reconcilers given these
// options share. A zero poll interval or concurrency (Flags not made by Bind) leaves the reconciler's default.
func (f *Flags) ReconcileOptions(extra ...reconcile.Option) ([]reconcile.Option, error) {
	opts := []reconcile.Option{reconcile.WithWatchFilter(f.WatchFilter), reconcile.WithResyncPeriod(f.ResyncPeriod)}
	if f.PollInterval > 0 {
		opts = append(opts, reconcile.WithPollInterval(f.PollInterval))
	}
	if f.MaxConcurrentReconciles > 0 {
		opts = append(opts, reconcile.WithMaxConcurrentReconciles(f.MaxConcurrentReconciles))
	}
	limiter, err := f.RateLimiter()
	if err != nil {
		return nil, fmt.Errorf("cannot create the cloud rate limiter: %w", err)
	}
	if limiter != nil {
		opts = append(opts, reconcile.WithRateLimiter(limiter))
	}
	return append(opts, extra...), nil
}

// Validate checks the flags' values; errors name the flag and the value.
func (f *Flags) Validate() error {
	var errs []error
	if f.WebhookPort < 1 || f.WebhookPort > 65535 {
		errs = append(errs, fmt.Errorf("invalid --webhook-port %d: want 1 to 65535", f.WebhookPort))
	}
	if f.PollInterval <= 0 {
		errs = append(errs, fmt.Errorf("invalid --poll-interval %s: must be positive", f.PollInterval))
	}
	if f.ResyncPeriod < 0 {
		errs = append(errs, fmt.Errorf("invalid --resync-period %s: must not be negative", f.ResyncPeriod))
	}
	if f.CloudQPS < 0 {
		errs = append(errs, fmt.Errorf("invalid --cloud-qps %v: must not be negative", f.CloudQPS))
	}
	if f.CloudQPS > 0 && f.CloudBurst < 1 {
		errs = append(errs, fmt.Errorf("invalid --cloud-burst %d: must be at least 1 with --cloud-qps", f.CloudBurst))
	}
	if f.MaxConcurrentReconciles < 1 {
		errs = append(errs, fmt.Errorf("invalid --max-concurrent-reconciles %d: must be at least 1", f.MaxConcurrentReconciles))
	}
	if f.LeaderElect && f.LeaderElectionID == "" {
		errs = append(errs, errors.New("invalid --leader-election-id \"\": required with --leader-elect"))
	}
	return errors.Join(errs...)
}

// Options returns the manager's controller-runtime options. The core Cluster and Machine, which capkit reads
// as unstructured objects, are served from the informer cache like typed objects.
func (f *Flags) Options(scheme *runtime.Scheme) ctrl.Options {
	o := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: f.MetricsAddr},
		HealthProbeBindAddress: f.ProbeAddr,
		LeaderElection:         f.LeaderElect,
		LeaderElectionID:       f.LeaderElectionID,
		WebhookServer:          webhook.NewServer(webhook.Options{Port: f.WebhookPort, CertDir: f.WebhookCertDir}),
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	}
	if f.Namespace != "" {
		o.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{f.Namespace: {}}}
	}
	return o
}

// AddChecks adds the standard health and readiness checks of a provider's manager to mgr, the ones Run
// adds: the /healthz ping ("healthz") and the /readyz check that the webhook server is serving ("readyz").
// A main that builds its manager by hand instead of calling Main or Run calls it after setting up its
// controllers and webhooks, before mgr.Start; --health-probe-bind-address (Flags.Options) is where they
// are served. The readiness check registers mgr's webhook server with mgr, so the manager starts it and
// needs its serving certificate in --webhook-cert-dir.
func AddChecks(mgr ctrl.Manager) error {
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("cannot add the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("cannot add the readiness check: %w", err)
	}
	return nil
}
