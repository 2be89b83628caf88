package lifecycle_test

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/providertest/lifecycle"
)

func ExampleNew() {
	l, err := lifecycle.New(fake.NewClientBuilder().Build(), lifecycle.Spec{
		Namespace: "default", ClusterName: "demo",
		InfraClusterGVK: memClusterGVK, InfraMachineGVK: memMachineGVK,
		ControlPlaneMachines: 1, WorkerMachines: 2,
		LeakChecker: lifecycle.LeakCheckerFunc(func(context.Context, lifecycle.LeakQuery) ([]string, error) { return nil, nil }),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.MachineNames(), l.Spec().CoreVersion, l.Spec().Timeout)

	_, err = lifecycle.New(fake.NewClientBuilder().Build(), lifecycle.Spec{Namespace: "default", ClusterName: "Demo"})
	fmt.Println(err)
	// Output:
	// [demo-cp-0 demo-md-0 demo-md-1] v1beta2 2m0s
	// cannot create lifecycle: clusterName "Demo" must be a DNS label: invalid lifecycle spec
}
