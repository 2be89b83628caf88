package controllers_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/examples/memcloud/capisim"
	"github.com/capkit/capkit/providertest"
)

var env *providertest.Environment

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	e, err := capisim.NewEnvironment()
	if err != nil {
		fmt.Fprintf(os.Stderr, "controllers: %v\n", err)
		os.Exit(1)
	}
	env = e
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "controllers: %v\n", err)
	}
	os.Exit(code)
}

func newNamespace(t *testing.T) string {
	t.Helper()
	ns, err := env.CreateNamespace(context.Background(), "controllers")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}
