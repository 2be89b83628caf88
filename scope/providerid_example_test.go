package scope_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// ProviderIDTracker keeps a machine's VM ID in spec.providerID: the checkpoint after the create is one spec
// write, and status goes out with Close.
func ExampleProviderIDTracker() {
	ctx := context.Background()
	infra := &DemoMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "m-0"}}
	c := scopetest.NewCountingClient(fake.NewClientBuilder().WithScheme(demoScheme()).WithObjects(infra).WithStatusSubresource(infra).Build())
	s, err := scope.NewMachineScope(ctx, c, infra, coreObject("Machine", "m-0"), coreObject("Cluster", "demo"),
		scope.WithContractVersion(contract.V1Beta2))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.PatchNow(ctx) // the ownership key, with the finalizer in a reconciler

	format := func(id string) string { return "demo://" + id }
	parse := func(pid string) (string, error) {
		id, ok := strings.CutPrefix(pid, "demo://")
		if !ok || id == "" {
			return "", errors.New("not a demo provider ID")
		}
		return id, nil
	}
	tr, _ := scope.ProviderIDTracker(s, s.InfraMachine(), "vm", format, parse)

	_ = tr.SetResourceID("vm", "i-42") // what reconcile.Ensure does after Create
	_ = tr.PatchNow(ctx)               // and its checkpoint
	s.InfraMachine().SetProvisioned(true)
	_ = s.Close(ctx)

	id, _ := tr.ResourceID("vm")
	fmt.Println("providerID:", infra.Spec.ProviderID, "id:", id)
	for _, w := range c.Log() {
		fmt.Println(strings.TrimSpace(w.Verb + " " + w.SubResource))
	}
	// Output:
	// providerID: demo://i-42 id: i-42
	// patch
	// patch
	// patch status
}
