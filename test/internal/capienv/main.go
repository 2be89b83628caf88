package capienv

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/capkit/capkit/providertest/testenv"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// AllComponents are the Cluster API managers the test packages run: core and kubeadm bootstrap.
var AllComponents = []Component{Core, KubeadmBootstrap}

// Main is TestMain for a package that runs the real Cluster API managers: it checks that their binaries
// exist (exit 1 naming hack/capi-managers.sh otherwise), starts envtest with Cluster API's own CRDs labelled
// as clusterctl installs them and a scheme with Cluster API's core and kubeadm types plus addToScheme, and
// passes opts (the provider's CRDs, webhooks) to testenv.Main. name prefixes error messages.
func Main(m *testing.M, env **testenv.Environment, name string, addToScheme []func(*runtime.Scheme) error, opts ...testenv.Option) {
	ctrl.SetLogger(logr.Discard())
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	if _, err := BinDir(AllComponents...); err != nil {
		fail(err)
	}
	crds, err := CRDs("", AllComponents...)
	if err != nil {
		fail(err)
	}
	scheme := runtime.NewScheme()
	errs := []error{clusterv1.AddToScheme(scheme), bootstrapv1.AddToScheme(scheme)}
	for _, add := range addToScheme {
		errs = append(errs, add(scheme))
	}
	if err := errors.Join(errs...); err != nil {
		fail(err)
	}
	all := append([]testenv.Option{testenv.WithScheme(scheme), testenv.WithoutCAPICRDs(), testenv.WithCRDs(crds...)}, opts...)
	testenv.Main(m, env, all...)
}
