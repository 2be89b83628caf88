package v1beta2_test

import (
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
)

// A PodMachine's provider ID names its Pod; the Node of the Pod carries the same ID.
func ExampleProviderID() {
	providerID := v1beta2.ProviderID("default/demo-md-0/0b7d5d6c")
	podID, err := v1beta2.PodIDFromProviderID(providerID)
	fmt.Println(providerID, podID, err)

	_, err = v1beta2.PodIDFromProviderID("podcloud://default/demo-md-0")
	fmt.Println(errors.Is(err, v1beta2.ErrInvalidProviderID))
	fmt.Println(err)
	// Output:
	// podcloud://default/demo-md-0/0b7d5d6c default/demo-md-0/0b7d5d6c <nil>
	// true
	// cannot parse provider ID "podcloud://default/demo-md-0": want "podcloud://NAMESPACE/NAME/UID": invalid podcloud provider ID
}

// A PodCluster's Pods and Services live in spec.namespace of the target cluster, or in the PodCluster's own
// namespace when it is empty.
func ExamplePodCluster_TargetNamespace() {
	c := &v1beta2.PodCluster{}
	c.Namespace = "default"
	fmt.Println(c.TargetNamespace())
	c.Spec.Namespace = "workloads"
	fmt.Println(c.TargetNamespace())
	// Output:
	// default
	// workloads
}

// A PodMachineTemplate sizes its machines with spec.template.spec.resources, cpu and memory; the controller
// reports them in status.capacity, where the cluster autoscaler reads them to scale from zero.
func ExamplePodMachineTemplate() {
	tmpl := v1beta2.PodMachineTemplate{}
	tmpl.Spec.Template.Spec.Resources = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"),
	}
	tmpl.SetCapacity(contract.MachineTemplateCapacity{Capacity: tmpl.Spec.Template.Spec.Resources.DeepCopy(),
		NodeInfo: contract.NodeInfo{OperatingSystem: "linux"}})
	b, err := json.Marshal(map[string]any{"spec": tmpl.Spec, "status": tmpl.Status})
	fmt.Println(string(b), err)
	// Output:
	// {"spec":{"template":{"spec":{"resources":{"cpu":"2","memory":"4Gi"}}}},"status":{"capacity":{"cpu":"2","memory":"4Gi"},"nodeInfo":{"operatingSystem":"linux"}}} <nil>
}
