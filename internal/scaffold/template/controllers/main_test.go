package controllers_test

import (
	"testing"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/providertest/testenv"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
)

var env *testenv.Environment

// TestMain starts kube-apiserver and etcd (from $KUBEBUILDER_ASSETS, else the cache that
// hack/envtest-binaries.sh fills: run make test) with the provider's CRDs and webhooks and capkit's minimal
// Cluster API CRDs.
func TestMain(m *testing.M) {
	dir, _ := testenv.SourceDir("../config") // a folder that cannot be found fails in Main, with the path
	testenv.Provider{ConfigDir: dir, AddToScheme: []func(*kruntime.Scheme) error{v1beta2.AddToScheme}}.Main(m, &env)
}
