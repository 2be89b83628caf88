package v1beta1_test

import (
	"testing"

	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/test/internal/capienv"
)

var (
	env        *testenv.Environment
	components = capienv.AllComponents
	// crdDir holds the hand-written v1beta1-contract CRDs of OldCluster and OldMachine.
	crdDir = "testdata"
)

// TestMain starts envtest with Cluster API's own CRDs (labelled as clusterctl installs them) and the
// OldCluster/OldMachine CRDs; each test starts the real Cluster API managers and the in-test provider. It
// exits 1 naming hack/capi-managers.sh when CAPKIT_CAPI_BIN does not hold the managers.
func TestMain(m *testing.M) {
	capienv.Main(m, &env, "v1beta1", nil, testenv.WithCRDPaths(crdDir))
}
