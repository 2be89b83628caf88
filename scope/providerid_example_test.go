package scope_test

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// ProviderIDTracker keeps a machine's VM ID in spec.providerID: the checkpoint after the create is one spec
// write, and status goes out with Close.
func ExampleProviderIDTracker() {
	ctx := context.Background()
	infra := &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "m-0"}}
	core := func(kind string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": kind,
			"metadata": map[string]any{"namespace": "default", "name": "demo"},
			"spec":     map[string]any{"clusterName": "demo"},
		}}
	}
	c := scopetest.NewCountingClient(fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(infra).WithStatusSubresource(infra).Build())
	s, err := scope.NewMachineScope(ctx, c, infra, core("Machine"), core("Cluster"), scope.WithContractVersion(contract.V1Beta2))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.PatchNow(ctx) // the ownership key, with the finalizer in a reconciler
	tr, _ := scope.ProviderIDTracker(s, "vm", fooFormat, fooParse)

	_ = tr.SetResourceID("vm", "i-42") // what reconcile.Ensure does after Create
	_ = tr.PatchNow(ctx)               // and its checkpoint
	_ = s.SetProvisioned(true)
	_ = s.Close(ctx)

	id, _ := tr.ResourceID("vm")
	fmt.Println("providerID:", infra.Spec.ProviderID, "id:", id)
	for _, w := range c.Log() {
		fmt.Println(strings.TrimSpace(w.Verb + " " + w.SubResource))
	}
	// Output:
	// providerID: foo://i-42 id: i-42
	// patch
	// patch
	// patch status
}
