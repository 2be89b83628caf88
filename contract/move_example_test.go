package contract_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
)

// A provider labels the objects it creates that no Cluster owns, before it creates them, so that clusterctl move
// takes them along: an identity with its hierarchy (the Secret it owns follows it), a configuration Secret alone.
func ExampleMarkMoveHierarchy() {
	identity := &unstructured.Unstructured{}
	identity.SetAPIVersion("infrastructure.example.io/v1alpha1")
	identity.SetKind("MemClusterIdentity")
	identity.SetName("team-a")
	identity.SetLabels(map[string]string{"team": "a"})
	fmt.Println(contract.MarkMoveHierarchy(identity), identity.GetLabels())

	config := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cloud-config", Namespace: "default"}}
	fmt.Println(contract.MarkForMove(config), config.Labels)
	fmt.Println(contract.MarkForMove(config), contract.HasMoveLabel(config))
	// Output:
	// true map[clusterctl.cluster.x-k8s.io/move-hierarchy: team:a]
	// true map[clusterctl.cluster.x-k8s.io/move:]
	// false true
}

// A controller whose cloud work cannot stop at once blocks clusterctl move while it drains.
func ExampleBlockMove() {
	machine := &unstructured.Unstructured{}
	machine.SetName("worker-0")
	fmt.Println(contract.BlockMove(machine), machine.GetAnnotations())
	// ... the cloud operation in flight has finished ...
	fmt.Println(contract.UnblockMove(machine), machine.GetAnnotations())
	// Output:
	// true map[clusterctl.cluster.x-k8s.io/block-move:]
	// true map[]
}
