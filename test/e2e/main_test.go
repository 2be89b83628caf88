package e2e_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/test/internal/capienv"
)

var (
	env        *providertest.Environment
	components = []capienv.Component{capienv.Core, capienv.KubeadmBootstrap}
)

// TestMain starts envtest with Cluster API's own CRDs (labelled as clusterctl installs them), memcloud's
// CRDs and memcloud's admission webhooks, served by the in-process manager each test starts. Each test
// starts the real Cluster API managers, which register their own webhooks.
func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	if _, err := capienv.BinDir(components...); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
	crds, err := capienv.CRDs("", components...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
	dir, err := memcloudtest.ConfigDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
	scheme := runtime.NewScheme()
	if err := errors.Join(clusterv1.AddToScheme(scheme), bootstrapv1.AddToScheme(scheme), v1beta2.AddToScheme(scheme)); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
	providertest.Main(m, &env,
		providertest.WithScheme(scheme),
		providertest.WithoutCAPICRDs(), providertest.WithCRDs(crds...),
		providertest.WithCRDPaths(filepath.Join(dir, "crd", "bases")),
		providertest.WithWebhooks(envtest.WebhookInstallOptions{Paths: []string{filepath.Join(dir, "webhook")}}),
	)
}
