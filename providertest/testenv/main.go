package testenv

import (
	"fmt"
	"os"
	"testing"
)

// Main starts an Environment for a package's tests, runs them and stops it, whatever happens. A provider's
// tests use Provider.Main, which also adds the provider's types to the scheme (without them the manager's
// client fails with "no kind is registered"); Main with options is for anything else, in a main_test.go:
//
//	package controllers_test
//
//	import (
//		"testing"
//
//		"github.com/capkit/capkit/providertest/testenv"
//	)
//
//	var env *testenv.Environment
//
//	func TestMain(m *testing.M) { testenv.Main(m, &env, testenv.WithCRDPaths("../config/crd/bases")) }
//
// When the environment cannot start, Main prints why (e.g. which make target builds the binaries) and exits 1.
func Main(m *testing.M, env **Environment, opts ...Option) {
	os.Exit(run(m, env, opts...))
}

func run(m *testing.M, env **Environment, opts ...Option) int {
	e, err := NewEnvironment(opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	*env = e
	defer func() {
		if err := e.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		}
	}()
	return m.Run()
}
