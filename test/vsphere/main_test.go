package vsphere_test

import (
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/test/internal/capienv"
)

var env *testenv.Environment

// TestMain starts envtest with Cluster API's CRDs and vspherecloud's; CAPV's CRDs are installed by the benchmark
// that runs it.
func TestMain(m *testing.M) {
	capienv.Main(m, &env, "vsphere", []func(*runtime.Scheme) error{v1beta2.AddToScheme},
		testenv.WithCRDPaths(filepath.Join("..", "..", "examples", "vspherecloud", "config", "crd", "bases")))
}
