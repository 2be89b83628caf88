package v1beta1_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/test/internal/capienv"
)

var (
	env        *providertest.Environment
	components = []capienv.Component{capienv.Core, capienv.KubeadmBootstrap}
	// crdDir holds the hand-written v1beta1-contract CRDs of OldCluster and OldMachine.
	crdDir = filepath.Join("testdata")
)

// TestMain starts envtest with Cluster API's own CRDs (labelled as clusterctl installs them) and the
// OldCluster/OldMachine CRDs; each test starts the real Cluster API managers and the in-test provider. It
// exits 1 naming hack/capi-managers.sh when CAPKIT_CAPI_BIN does not hold the managers.
func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	if _, err := capienv.BinDir(components...); err != nil {
		fmt.Fprintf(os.Stderr, "v1beta1: %v\n", err)
		os.Exit(1)
	}
	crds, err := capienv.CRDs("", components...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "v1beta1: %v\n", err)
		os.Exit(1)
	}
	scheme := runtime.NewScheme()
	if err := errors.Join(clusterv1.AddToScheme(scheme), bootstrapv1.AddToScheme(scheme)); err != nil {
		fmt.Fprintf(os.Stderr, "v1beta1: %v\n", err)
		os.Exit(1)
	}
	providertest.Main(m, &env,
		providertest.WithScheme(scheme),
		providertest.WithoutCAPICRDs(), providertest.WithCRDs(crds...),
		providertest.WithCRDPaths(crdDir),
	)
}
