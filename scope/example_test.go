package scope_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/scope"
)

// A provider's service sets contract fields through the scope; Close persists them at the paths of the
// contract version (here v1beta2) and writes the Ready summary.
func ExampleNewClusterScope() {
	ctx := context.Background()
	infra := &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "demo"}}
	cluster := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
		"metadata": map[string]any{"namespace": "default", "name": "demo"},
	}}
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(infra).WithStatusSubresource(infra).Build()

	s, err := scope.NewClusterScope(ctx, c, infra, cluster,
		scope.WithContractVersion(contract.V1Beta2),
		scope.WithOwnershipKeyGenerator(func() (string, error) { return "k7x2", nil }))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.PatchNow(ctx) // persists the ownership key before any cloud call
	key, _ := s.OwnershipKey()
	_ = s.SetResourceID("vpc", "vpc-0a1b")
	_ = s.SetControlPlaneEndpoint(contract.APIEndpoint{Host: "10.0.0.10", Port: 6443})
	_ = s.SetProvisioned(true)
	_, _ = conditions.MarkTrue(s.Conditions(), "NetworkReady", "Created", "")
	if err := s.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	id, _ := s.ResourceID("vpc")
	fmt.Println("key:", key)
	fmt.Println("vpc:", id)
	fmt.Println("provisioned:", *infra.Status.Initialization.Provisioned)
	fmt.Println("ready:", conditions.IsTrue(conditions.ForSlice(&infra.Status.Conditions), conditions.Ready))
	// Output:
	// key: k7x2
	// vpc: vpc-0a1b
	// provisioned: true
	// ready: true
}
