package memcloudtest

import (
	"errors"
	"fmt"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta1"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/providertest/testenv"
)

// Scheme returns a scheme with client-go's types and memcloud's v1beta2 and v1beta1 types.
func Scheme() (*kruntime.Scheme, error) {
	s := kruntime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(s), v1beta2.AddToScheme(s), v1beta1.AddToScheme(s)); err != nil {
		return nil, fmt.Errorf("cannot build the scheme: %w", err)
	}
	return s, nil
}

// ConfigDir returns memcloud's config folder (CRDs, webhook manifests), found from this package's source.
func ConfigDir() (string, error) { return testenv.SourceDir("../config") }

// TestEnv is memcloud as a testenv.Provider, its config folder and scheme: TestEnv().NewEnvironment() starts
// an API server for memcloud, TestEnv().Main(m, &env) does it in a TestMain. The scheme holds v1beta1 too, so
// that envtest points the CRDs of the kinds that serve it at the conversion webhook of the manager a test starts.
func TestEnv() testenv.Provider {
	dir, _ := ConfigDir() // a folder that cannot be found fails in TestEnv().Options, with the path
	return testenv.Provider{ConfigDir: dir, AddToScheme: []func(*kruntime.Scheme) error{v1beta2.AddToScheme, v1beta1.AddToScheme}}
}
