package capi_test

import (
	"testing"

	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/test/internal/capienv"
)

var (
	env        *testenv.Environment
	components = capienv.AllComponents
)

// TestMain starts envtest with the real Cluster API CRDs of the module in go.mod, installed as clusterctl
// installs them, and the stand-in provider's CRDs; each test starts the real managers it needs.
func TestMain(m *testing.M) {
	capienv.Main(m, &env, "capi", nil, testenv.WithCRDs(fakeInfraCRDs()...))
}
