package clusterctl_test

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
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/test/internal/capienv"
)

var env *testenv.Environment

// addToScheme are the types the package's clients use besides Cluster API's.
var addToScheme = []func(*runtime.Scheme) error{v1beta2.AddToScheme, v1beta1.AddToScheme, ipamv1.AddToScheme}

// TestMain starts envtest with Cluster API's CRDs (core, kubeadm bootstrap and kubeadm control plane, which the
// template uses) and memcloud's CRDs and webhooks.
func TestMain(m *testing.M) {
	opts, err := envOptions()
	if err != nil {
		fmt.Fprintf(os.Stderr, "clusterctl: %v\n", err)
		os.Exit(1)
	}
	capienv.Main(m, &env, "clusterctl", addToScheme, opts...)
}

// envOptions are the options of the package's API server on top of capienv's: the kubeadm control plane CRDs
// and memcloud's CRDs and webhooks. Each call returns new options, so that a second API server (the target of
// a move) gets its own webhook installation.
func envOptions() ([]testenv.Option, error) {
	dir, err := memcloudtest.ConfigDir()
	if err != nil {
		return nil, err
	}
	kcp, err := capienv.CRDs("", capienv.KubeadmControlPlaneCRDs)
	if err != nil {
		return nil, err
	}
	return []testenv.Option{
		testenv.WithCRDs(kcp...),
		testenv.WithCRDPaths(filepath.Join(dir, "crd", "bases")),
		testenv.WithWebhooks(envtest.WebhookInstallOptions{Paths: []string{filepath.Join(dir, "webhook")}}),
	}, nil
}
