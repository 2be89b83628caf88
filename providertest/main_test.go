package providertest_test

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	testenv.Main(m, &env, testenv.WithCRDPaths("testdata/crds", "testdata/dryrun/crd.yaml"),
		testenv.WithWebhooks(envtest.WebhookInstallOptions{Paths: []string{"testdata/dryrun/webhook.yaml"}}))
}
