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

// addToScheme are the types the package's clients use besides Cluster API's.
var addToScheme = []func(*runtime.Scheme) error{v1beta2.AddToScheme}

// vspherecloudCRDs is the folder of vspherecloud's CRDs, as controller-gen writes them: with their contract label,
// without clusterctl's (capienv.InstallInventory adds those).
var vspherecloudCRDs = filepath.Join("..", "..", "examples", "vspherecloud", "config", "crd", "bases")

// TestMain starts envtest with Cluster API's CRDs and vspherecloud's; CAPV's CRDs are installed by the benchmark
// that runs it.
func TestMain(m *testing.M) {
	capienv.Main(m, &env, "vsphere", addToScheme, testenv.WithCRDPaths(vspherecloudCRDs))
}
