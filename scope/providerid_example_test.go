package scope_test

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// ProviderIDTracker keeps a machine's VM ID in spec.providerID: the checkpoint after the create is one spec
// write, and status goes out with Close.
func ExampleProviderIDTracker() {
	ctx := context.Background()
	infra := &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "m-0"}}
	c := scopetest.NewCountingClient(fake.NewClientBuilder().WithScheme(memcloudScheme()).WithObjects(infra).WithStatusSubresource(infra).Build())
	s, err := scope.NewMachineScope(ctx, c, infra, coreObject("Machine", "m-0"), coreObject("Cluster", "demo"),
		scope.WithContractVersion(contract.V1Beta2))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.PatchNow(ctx) // the ownership key, with the finalizer in a reconciler

	// memcloud's provider ID is "memcloud://<instance ID>"; its API package formats and parses it.
	tr, _ := scope.ProviderIDTracker(s, s.InfraMachine(), "vm", v1beta2.ProviderID, v1beta2.InstanceIDFromProviderID)

	_ = tr.SetResourceID("vm", "i-42") // what ensure.Exists does after Create
	_ = tr.PatchNow(ctx)               // and its checkpoint
	s.InfraMachine().SetProvisioned(true)
	_ = s.Close(ctx)

	id, _ := tr.ResourceID("vm")
	fmt.Println("providerID:", infra.Spec.ProviderID, "id:", id)
	for _, w := range c.Log() {
		fmt.Println(strings.TrimSpace(w.Verb + " " + w.SubResource))
	}
	// Output:
	// providerID: memcloud://i-42 id: i-42
	// patch
	// patch
	// patch status
}
