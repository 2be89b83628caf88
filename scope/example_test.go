package scope_test

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/scope"
)

// The examples use the API types of memcloud, capkit's example provider (api/v1beta2 in a Kubebuilder
// repository): MemCluster and MemMachine reach each contract field through a one-line accessor method,
// never by reflection.

// memcloudScheme registers memcloud's types, as the provider's main does.
func memcloudScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = v1beta2.AddToScheme(s)
	return s
}

// coreObject returns a cluster.x-k8s.io/v1beta2 Cluster or Machine of the demo cluster, as read by a
// reconciler.
func coreObject(kind, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": kind,
		"metadata": map[string]any{"namespace": "default", "name": name},
		"spec":     map[string]any{"clusterName": "demo"},
	}}
}

// A provider's service sets contract fields on its own typed object; Close persists them and writes the
// Ready summary of the conditions.
func ExampleNewClusterScope() {
	ctx := context.Background()
	infra := &v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "demo"}}
	c := fake.NewClientBuilder().WithScheme(memcloudScheme()).WithObjects(infra).WithStatusSubresource(infra).Build()

	s, err := scope.NewClusterScope(ctx, c, infra, coreObject("Cluster", "demo"),
		scope.WithContractVersion(contract.V1Beta2),
		scope.WithOwnershipKeyGenerator(func() (string, error) { return "k7x2", nil }))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.PatchNow(ctx) // persists the ownership key before any cloud call
	key, _ := s.OwnershipKey()

	// What a service does, through scope.ClusterScoper[*v1beta2.MemCluster]:
	_ = s.SetResourceID("network", "net-0a1b")
	s.InfraCluster().SetControlPlaneEndpoint(contract.APIEndpoint{Host: "10.0.0.10", Port: 6443})
	s.InfraCluster().SetProvisioned(true)
	_, _ = conditions.SetTrue(s.InfraCluster(), v1beta2.NetworkReadyCondition, "Created", "")

	if err := s.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	// What the API server has now.
	onServer := &v1beta2.MemCluster{}
	_ = c.Get(ctx, client.ObjectKeyFromObject(infra), onServer)
	fmt.Println("key:", key, onServer.Labels[scope.OwnershipKeyLabel])
	fmt.Println("network:", onServer.Status.Resources["network"])
	fmt.Println("endpoint:", onServer.Spec.ControlPlaneEndpoint.Host)
	fmt.Println("provisioned:", onServer.IsProvisioned())
	fmt.Println("ready:", conditions.IsTrue(onServer, conditions.Ready))
	// Output:
	// key: k7x2 k7x2
	// network: net-0a1b
	// endpoint: 10.0.0.10
	// provisioned: true
	// ready: true
}

// An unstructured InfraCluster is read and written at the paths of its contract version: here v1beta1,
// whose provisioned flag is status.ready and whose failure domains are a map.
func ExampleNewUnstructuredClusterScope() {
	ctx := context.Background()
	infra := &unstructured.Unstructured{}
	infra.SetAPIVersion("infrastructure.example.com/v1alpha1")
	infra.SetKind("LegacyCluster")
	infra.SetNamespace("default")
	infra.SetName("demo")
	c := fake.NewClientBuilder().WithObjects(infra).WithStatusSubresource(infra).Build()

	cluster := coreObject("Cluster", "demo")
	cluster.SetAPIVersion("cluster.x-k8s.io/v1beta1")
	s, err := scope.NewUnstructuredClusterScope(ctx, c, infra, cluster, scope.WithContractVersion(contract.V1Beta1))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.SetProvisioned(true)
	_ = s.SetFailureDomains([]contract.FailureDomain{{Name: "zone-b"}, {Name: "zone-a"}})
	status, _ := json.Marshal(infra.Object["status"])
	fmt.Println(string(status))
	// Output:
	// {"failureDomains":{"zone-a":{},"zone-b":{}},"ready":true}
}
