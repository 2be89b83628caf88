package identity_test

import (
	"testing"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) { testtypes.Main(m, &env) }
