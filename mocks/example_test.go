package mocks_test

import (
	"context"
	"fmt"

	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// printReporter stands for the *testing.T a provider's test passes to gomock.NewController: it prints what
// the test would fail with.
type printReporter struct{}

func (printReporter) Errorf(format string, args ...any) {
	fmt.Printf("test error: "+format+"\n", args...)
}
func (printReporter) Fatalf(format string, args ...any) {
	fmt.Printf("test fatal: "+format+"\n", args...)
}

// providerIDService is a provider's machine service: it writes the provider ID of the instance the
// machine's earlier steps recorded, and reports not done until there is one.
var providerIDService = reconcile.ServiceFuncs[scope.MachineScoper[*v1beta2.MemMachine]]{
	ReconcileFunc: func(ctx context.Context, s scope.MachineScoper[*v1beta2.MemMachine]) (step.Result, error) {
		id, ok := s.ResourceID("instance")
		if !ok {
			return step.Result{Reason: "WaitingForInstance"}, nil
		}
		s.InfraMachine().Spec.ProviderID = v1beta2.ProviderID(id)
		return step.Result{Done: true}, nil
	},
}

// A service is unit-tested against a mocked scope: the test says what the service may ask of the scope, and
// gomock fails the test on any other call. No API server and no cloud are involved.
func Example_serviceAgainstAMockedScope() {
	ctrl := gomock.NewController(printReporter{})
	ctx := context.Background()
	machine := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "worker-0"}}

	// The instance is not recorded yet: the service waits and touches nothing.
	// snippet:start mock
	s := mocks.NewMockMachineScoper[*v1beta2.MemMachine](ctrl)
	s.EXPECT().ResourceID("instance").Return("", false)
	// snippet:end mock
	res, err := providerIDService.Reconcile(ctx, s)
	fmt.Printf("done=%t reason=%s err=%v\n", res.Done, res.Reason, err)

	// The instance is recorded: the service writes the provider ID into the InfraMachine.
	s = mocks.NewMockMachineScoper[*v1beta2.MemMachine](ctrl)
	gomock.InOrder(
		s.EXPECT().ResourceID("instance").Return("i-0001", true),
		s.EXPECT().InfraMachine().Return(machine),
	)
	res, err = providerIDService.Reconcile(ctx, s)
	fmt.Printf("done=%t err=%v providerID=%s\n", res.Done, err, machine.Spec.ProviderID)

	// Every expected call was made; a missing one would be reported here.
	ctrl.Finish()
	// Output:
	// done=false reason=WaitingForInstance err=<nil>
	// done=true err=<nil> providerID=memcloud://i-0001
}
