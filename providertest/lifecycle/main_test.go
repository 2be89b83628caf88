package lifecycle_test

import (
	"testing"

	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) { testenv.Main(m, &env, testenv.WithCRDPaths("../testdata/crds")) }
