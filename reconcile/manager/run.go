package manager

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/capkit/capkit/reconcile"
)

// Provider is what Run and Main need of a provider's controller manager besides the standard flags.
type Provider struct {
	// Name names the provider in logs and errors, e.g. "memcloud". Required.
	Name string
	// Defaults are the provider's defaults of the standard flags (Bind).
	Defaults Defaults
	// Flags registers the provider's own flags, e.g. its cloud's endpoint; optional.
	Flags func(fs *flag.FlagSet)
	// AddToScheme adds the provider's API types to the manager's scheme, which always holds client-go's.
	AddToScheme func(s *runtime.Scheme) error
	// Setup registers the provider's controllers and webhooks with mgr. opts are the reconcile options of
	// the flags (Flags.ReconcileOptions), to give to every reconciler. Required.
	Setup func(mgr ctrl.Manager, opts []reconcile.Option) error
	// Config is the management cluster's REST config; default ctrl.GetConfig (--kubeconfig, $KUBECONFIG,
	// in-cluster, ~/.kube/config).
	Config *rest.Config
}

// Parse binds the standard flags with d's defaults and the provider's own with bind (when not nil), parses
// args, rejects arguments that are not flags and validates the values (Validate). For -h it returns
// flag.ErrHelp, after printing the usage.
func (f *Flags) Parse(args []string, d Defaults, bind func(fs *flag.FlagSet)) error {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	f.Bind(fs, d)
	if bind != nil {
		bind(fs)
	}
	if fs.Lookup(config.KubeconfigFlagName) == nil {
		config.RegisterFlags(fs) // --kubeconfig, which ctrl.GetConfig reads
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return f.Validate()
}

// Run runs the provider's controller manager until ctx is done: the scheme (client-go's types and
// p.AddToScheme), the manager with f's options (Options), p.Setup with f's reconcile options
// (ReconcileOptions), the health and readiness checks (AddChecks), then Start. It returns when the manager
// stops, with its error.
func Run(ctx context.Context, f Flags, p Provider) error {
	if p.Setup == nil {
		return errors.New("cannot run the manager: Provider.Setup must not be nil")
	}
	scheme := runtime.NewScheme()
	errs := []error{clientgoscheme.AddToScheme(scheme)}
	if p.AddToScheme != nil {
		errs = append(errs, p.AddToScheme(scheme))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cannot build the scheme: %w", err)
	}
	cfg := p.Config
	if cfg == nil {
		var err error
		if cfg, err = ctrl.GetConfig(); err != nil {
			return fmt.Errorf("cannot load the kubeconfig: %w", err)
		}
	}
	mgr, err := ctrl.NewManager(cfg, f.Options(scheme))
	if err != nil {
		return fmt.Errorf("cannot create the manager: %w", err)
	}
	opts, err := f.ReconcileOptions()
	if err != nil {
		return err
	}
	if err := p.Setup(mgr, opts); err != nil {
		return fmt.Errorf("cannot set up %s's controllers and webhooks: %w", p.Name, err)
	}
	if err := AddChecks(mgr); err != nil {
		return err
	}
	mgr.GetLogger().Info("starting the manager", "provider", p.Name, "namespace", f.Namespace, "watchFilter", f.WatchFilter)
	return mgr.Start(ctx)
}

// Main is a provider's func main: it parses args into f (Parse with p.Defaults and p.Flags), logs with the
// --zap-* flags, and runs the manager (Run) until SIGTERM or SIGINT. It returns the exit code: 0 after -h
// or a clean stop, 2 for bad flags (the error goes to stderr), 1 when the manager fails (the error is logged).
// A provider's func main is os.Exit(manager.Main(os.Args[1:], &f.Flags, provider)); the package doc shows a whole
// main.go.
func Main(args []string, f *Flags, p Provider) int {
	return mainWith(args, f, p, os.Stderr, ctrl.SetupSignalHandler)
}

// mainWith is Main with its error output and its context for tests.
func mainWith(args []string, f *Flags, p Provider, stderr io.Writer, signals func() context.Context) int {
	err := f.Parse(args, p.Defaults, p.Flags)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s manager: %v\n", p.Name, err)
		return 2
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&f.Zap)))
	if err := Run(signals(), *f, p); err != nil {
		ctrl.Log.Error(err, "manager stopped", "provider", p.Name)
		return 1
	}
	return 0
}
