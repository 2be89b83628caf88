package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta1"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	podv1beta2 "github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/podcloudtest"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/test/internal/capienv"
	"github.com/capkit/capkit/test/internal/hostedcp"
)

var (
	env        *testenv.Environment
	components = capienv.AllComponents
)

// TestMain starts envtest with Cluster API's own CRDs (labelled as clusterctl installs them), hostedcp's CRDs,
// and the CRDs and admission webhooks of memcloud and podcloud, and memcloud's conversion webhook (for its
// v1beta1), served by the in-process manager each test starts. Each test starts the real Cluster API managers,
// which register their own webhooks.
func TestMain(m *testing.M) {
	dir, err := memcloudtest.ConfigDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
	podDir, err := podcloudtest.ConfigDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
	capienv.Main(m, &env, "e2e", []func(*runtime.Scheme) error{v1beta2.AddToScheme, v1beta1.AddToScheme, podv1beta2.AddToScheme, ipamv1.AddToScheme},
		testenv.WithCRDs(hostedcp.CRDs()...),
		testenv.WithCRDPaths(filepath.Join(dir, "crd", "bases"), filepath.Join(podDir, "crd", "bases")),
		testenv.WithWebhooks(envtest.WebhookInstallOptions{Paths: []string{filepath.Join(dir, "webhook"), filepath.Join(podDir, "webhook")}}),
	)
}
