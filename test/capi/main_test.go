package capi_test

import (
	"fmt"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/test/internal/capienv"
)

var (
	env        *providertest.Environment
	components = []capienv.Component{capienv.Core, capienv.KubeadmBootstrap}
)

// TestMain starts envtest with the real Cluster API CRDs of the module in go.mod, installed as clusterctl
// installs them; each test starts the real managers it needs.
func TestMain(m *testing.M) {
	if _, err := capienv.BinDir(components...); err != nil {
		fmt.Fprintf(os.Stderr, "capi: %v\n", err)
		os.Exit(1)
	}
	crds, err := capienv.CRDs("", components...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "capi: %v\n", err)
		os.Exit(1)
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clusterv1.AddToScheme, bootstrapv1.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintf(os.Stderr, "capi: %v\n", err)
			os.Exit(1)
		}
	}
	providertest.Main(m, &env, providertest.WithoutCAPICRDs(), providertest.WithCRDs(append(crds, fakeInfraCRDs()...)...), providertest.WithScheme(scheme))
}
