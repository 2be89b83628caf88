package main

import (
	"errors"
	"flag"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta1"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/controllers"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/manager"
)

// flags are the manager's command-line flags: capkit's standard ones, the in-memory cloud's seed and behaviour
// (asynchronous creates, search lag, idempotency tokens) and the namespace of the MemClusterIdentities'
// credentials Secrets.
type flags struct {
	manager.Flags
	cloudSeed         uint64
	asyncCreates      time.Duration
	searchLag         time.Duration
	noTokens          bool
	identityNamespace string
}

// cloudOptions are the options of the in-memory cloud that the flags set.
func (f *flags) cloudOptions() []cloud.Option {
	opts := []cloud.Option{cloud.WithSeed(f.cloudSeed), cloud.WithAsyncCreates(f.asyncCreates), cloud.WithSearchLag(f.searchLag)}
	if f.noTokens {
		opts = append(opts, cloud.WithoutTokens())
	}
	return opts
}

// provider is memcloud's part of the manager: its flags, types, controllers and webhooks.
func (f *flags) provider() manager.Provider {
	return manager.Provider{
		Name:     "memcloud",
		Defaults: manager.Defaults{LeaderElectionID: "memcloud-controller-manager.memcloud.capkit.io"},
		Flags: func(fs *flag.FlagSet) {
			fs.Uint64Var(&f.cloudSeed, "cloud-seed", cloud.DefaultSeed, "seed of the in-memory cloud's IDs")
			fs.DurationVar(&f.asyncCreates, "async-creates", 0, "run the in-memory cloud's creates as operations that take this long (0: creates are synchronous)")
			fs.DurationVar(&f.searchLag, "search-lag", 0, "make the in-memory cloud's tag search list a resource this long after it exists")
			fs.BoolVar(&f.noTokens, "no-tokens", false, "make the in-memory cloud ignore idempotency tokens, as clouds without any")
			fs.StringVar(&f.identityNamespace, "identity-namespace", "", "namespace of the MemClusterIdentities' credentials Secrets, usually memcloud's own (empty: no identities)")
		},
		AddToScheme: addToScheme,
		Setup:       f.setup,
	}
}

// addToScheme adds memcloud's API versions: v1beta2, the hub, and v1beta1, which the conversion webhook that
// webhooks.SetupWithManager registers converts to and from it.
func addToScheme(s *runtime.Scheme) error {
	return errors.Join(v1beta2.AddToScheme(s), v1beta1.AddToScheme(s))
}

// setup creates the in-memory cloud (a real provider creates its cloud SDK client here) and registers the
// controllers, the webhooks and the in-place update extension (served by the webhook server, for an
// ExtensionConfig that points at the webhook Service).
func (f *flags) setup(mgr ctrl.Manager, opts []reconcile.Option) error {
	c, err := cloud.New(f.cloudOptions()...)
	if err != nil {
		return err
	}
	copts := []controllers.Option{controllers.WithReconcileOptions(opts...)}
	if f.identityNamespace != "" {
		copts = append(copts, controllers.WithIdentities(f.identityNamespace, mgr.GetAPIReader()))
	}
	// snippet:start setup
	if err := controllers.SetupWithManager(mgr, c, copts...); err != nil {
		return err
	}
	if err := webhooks.SetupWithManager(mgr); err != nil {
		return err
	}
	return controllers.SetupInPlaceExtension(mgr, c, copts...)
	// snippet:end setup
}

func main() {
	var f flags
	os.Exit(manager.Main(os.Args[1:], &f.Flags, f.provider()))
}
