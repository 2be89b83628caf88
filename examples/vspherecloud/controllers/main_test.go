package controllers_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	testenv.Provider{ConfigDir: "../config", AddToScheme: []func(*runtime.Scheme) error{v1beta2.AddToScheme}}.Main(m, &env)
}
