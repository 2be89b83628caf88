package capacity_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile/capacity"
)

// A provider sizes its machine templates from their flavor; the reconciler writes status.capacity and
// status.nodeInfo, where the cluster autoscaler reads them.
func ExampleNewReconcilerFor() {
	ctx := context.Background()
	sch := runtime.NewScheme()
	_ = v1beta2.AddToScheme(sch)
	tmpl := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "workers"}}
	tmpl.Spec.Template.Spec.Flavor = v1beta2.FlavorSmall
	c := fake.NewClientBuilder().WithScheme(sch).WithObjects(tmpl).WithStatusSubresource(tmpl).Build()

	r, err := capacity.NewReconcilerFor(c, &v1beta2.MemMachineTemplate{},
		func(t *v1beta2.MemMachineTemplate) (contract.MachineTemplateCapacity, error) {
			return contract.MachineTemplateCapacity{
				Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
				NodeInfo: contract.NodeInfo{Architecture: contract.ArchitectureAmd64, OperatingSystem: "linux"},
			}, nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	key := types.NamespacedName{Namespace: "ns", Name: "workers"}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
		fmt.Println(err)
		return
	}
	got := &v1beta2.MemMachineTemplate{}
	_ = c.Get(ctx, key, got)
	fmt.Println(got.Status.Capacity.Cpu(), got.Status.Capacity.Memory(), got.Status.NodeInfo.Architecture, got.Status.NodeInfo.OperatingSystem)
	// Output:
	// 2 4Gi amd64 linux
}
