package controllers_test

import (
	"testing"

	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) { memcloudtest.TestEnv().Main(m, &env) }
