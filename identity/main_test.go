package identity_test

import (
	"os"
	"testing"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	if os.Getenv(printChildEnv) != "" { // the printing child of TestCredentialsSurviveEveryPrinter needs no API server
		os.Exit(m.Run())
	}
	testtypes.Main(m, &env)
}
