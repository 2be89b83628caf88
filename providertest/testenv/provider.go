package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ProviderOptions returns the options of an Environment for a provider whose controller-gen output is in
// configDir (crd/bases and, when present, webhook): a scheme with client-go's types and addToScheme, the
// provider's CRDs and admission webhooks, and capkit's minimal Cluster and Machine CRDs (both core API versions
// served). Options given to NewEnvironment after these override them.
func ProviderOptions(configDir string, addToScheme ...func(*runtime.Scheme) error) ([]Option, error) {
	crds := filepath.Join(configDir, "crd", "bases")
	if _, err := os.Stat(crds); err != nil {
		return nil, fmt.Errorf("cannot find the provider's CRDs: %w", err)
	}
	s := runtime.NewScheme()
	errs := []error{clientgoscheme.AddToScheme(s)}
	for _, add := range addToScheme {
		errs = append(errs, add(s))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("cannot build the scheme: %w", err)
	}
	capi, err := MinimalCAPICRDs()
	if err != nil {
		return nil, err
	}
	opts := []Option{WithScheme(s), WithCRDPaths(crds), WithoutCAPICRDs(), WithCRDs(capi...)}
	if hooks := filepath.Join(configDir, "webhook"); fileExists(filepath.Join(hooks, "manifests.yaml")) {
		opts = append(opts, WithWebhooks(envtest.WebhookInstallOptions{Paths: []string{hooks}}))
	}
	return opts, nil
}

// SourceDir returns rel resolved against the folder of the Go source file that calls it, e.g. "../config"
// from a provider's test helper package: a provider's config folder found wherever its tests run.
func SourceDir(rel string) (string, error) {
	_, file, _, ok := goruntime.Caller(1)
	if !ok {
		return "", fmt.Errorf("cannot find the folder %q: no caller information", rel)
	}
	return filepath.Join(filepath.Dir(file), rel), nil
}

// Provider is a provider under test: where its controller-gen output is and the types it adds to the scheme.
// Its methods give the Environment of ProviderOptions; a provider's test helper package wraps them.
type Provider struct {
	// ConfigDir holds crd/bases and, when the provider has webhooks, webhook.
	ConfigDir string
	// AddToScheme adds the provider's types.
	AddToScheme []func(*runtime.Scheme) error
}

// Options returns ProviderOptions of p followed by opts, which can override them.
func (p Provider) Options(opts ...Option) ([]Option, error) {
	all, err := ProviderOptions(p.ConfigDir, p.AddToScheme...)
	if err != nil {
		return nil, err
	}
	return append(all, opts...), nil
}

// NewEnvironment starts an API server with Options(opts...).
func (p Provider) NewEnvironment(opts ...Option) (*Environment, error) {
	all, err := p.Options(opts...)
	if err != nil {
		return nil, err
	}
	return NewEnvironment(all...)
}

// Main is Main with Options(opts...), for a TestMain; controller-runtime's logs are discarded. When the
// options cannot be built it prints why and exits 1.
func (p Provider) Main(m *testing.M, env **Environment, opts ...Option) {
	ctrl.SetLogger(logr.Discard())
	all, err := p.Options(opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		os.Exit(1)
	}
	Main(m, env, all...)
}
