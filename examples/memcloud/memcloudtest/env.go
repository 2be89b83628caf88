package memcloudtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/providertest/testenv"
)

// Scheme returns a scheme with client-go's types and memcloud's v1beta2 types.
func Scheme() (*kruntime.Scheme, error) {
	s := kruntime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(s), v1beta2.AddToScheme(s)); err != nil {
		return nil, fmt.Errorf("cannot build the scheme: %w", err)
	}
	return s, nil
}

// ConfigDir returns memcloud's config folder (CRDs, webhook manifests), found from this package's source.
func ConfigDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot find memcloud's config folder: no caller information")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "config")
	if _, err := os.Stat(filepath.Join(dir, "crd", "bases")); err != nil {
		return "", fmt.Errorf("cannot find memcloud's config folder: %w", err)
	}
	return dir, nil
}

// provider is memcloud as a testenv.Provider.
func provider() (testenv.Provider, error) {
	dir, err := ConfigDir()
	if err != nil {
		return testenv.Provider{}, err
	}
	return testenv.Provider{ConfigDir: dir, AddToScheme: []func(*kruntime.Scheme) error{v1beta2.AddToScheme}}, nil
}

// EnvironmentOptions returns the testenv options of an API server for memcloud (testenv.ProviderOptions):
// memcloud's CRDs and admission webhooks, its scheme, and capkit's minimal Cluster API CRDs. opts come last and
// can override them.
func EnvironmentOptions(opts ...testenv.Option) ([]testenv.Option, error) {
	p, err := provider()
	if err != nil {
		return nil, err
	}
	return p.Options(opts...)
}

// NewEnvironment starts an API server with EnvironmentOptions.
func NewEnvironment(opts ...testenv.Option) (*testenv.Environment, error) {
	p, err := provider()
	if err != nil {
		return nil, err
	}
	return p.NewEnvironment(opts...)
}

// Main is testenv.Main with EnvironmentOptions, for a TestMain; controller-runtime's logs are discarded.
func Main(m *testing.M, env **testenv.Environment, opts ...testenv.Option) {
	p, err := provider()
	if err != nil {
		fmt.Fprintf(os.Stderr, "memcloudtest: %v\n", err)
		os.Exit(1)
	}
	p.Main(m, env, opts...)
}
