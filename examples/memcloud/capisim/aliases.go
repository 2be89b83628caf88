package capisim

import (
	"context"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest"
)

// Options is memcloudtest.Options.
//
// Deprecated: use memcloudtest.Options.
type Options = memcloudtest.Options

// Provider is memcloudtest.Provider.
//
// Deprecated: use memcloudtest.Provider.
type Provider = memcloudtest.Provider

// Scheme calls memcloudtest.Scheme.
//
// Deprecated: use memcloudtest.Scheme.
func Scheme() (*kruntime.Scheme, error) { return memcloudtest.Scheme() }

// ConfigDir calls memcloudtest.ConfigDir.
//
// Deprecated: use memcloudtest.ConfigDir.
func ConfigDir() (string, error) { return memcloudtest.ConfigDir() }

// NewEnvironment calls memcloudtest.NewEnvironment.
//
// Deprecated: use memcloudtest.NewEnvironment.
func NewEnvironment(opts ...providertest.Option) (*providertest.Environment, error) {
	return memcloudtest.NewEnvironment(opts...)
}

// StartProvider calls memcloudtest.StartProvider.
//
// Deprecated: use memcloudtest.StartProvider.
func StartProvider(ctx context.Context, env *providertest.Environment, o Options) (*Provider, error) {
	return memcloudtest.StartProvider(ctx, env, o)
}

// BootstrapData calls memcloudtest.BootstrapData.
//
// Deprecated: use memcloudtest.BootstrapData.
func BootstrapData(cluster, machine string, controlPlane bool) []byte {
	return memcloudtest.BootstrapData(cluster, machine, controlPlane)
}
