package controllers_test

import (
	"context"
	"testing"

	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) { memcloudtest.TestEnv().Main(m, &env) }

func newNamespace(t *testing.T) string {
	t.Helper()
	ns, err := env.CreateNamespace(context.Background(), "controllers")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}
