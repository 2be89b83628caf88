package controllers_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/capkit/capkit/examples/podcloud/podcloudtest"
	"github.com/capkit/capkit/providertest/testenv"
)

var (
	env       *testenv.Environment
	nodesOnce sync.Once
	nodesErr  error
)

func TestMain(m *testing.M) { podcloudtest.TestEnv().Main(m, &env) }

// startNodes starts the fake nodes once for the package: kube-scheduler places the Pods, KWOK runs them.
func startNodes(t *testing.T) {
	t.Helper()
	nodesOnce.Do(func() {
		nodes, err := podcloudtest.StartNodes(context.Background(), env)
		if err != nil {
			nodesErr = err
			return
		}
		_ = nodes // env.Stop stops them when the package's tests end
	})
	if nodesErr != nil {
		fmt.Fprintln(os.Stderr, nodesErr)
		t.Fatal(nodesErr)
	}
}
