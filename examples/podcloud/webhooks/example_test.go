package webhooks_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
)

// A PodMachine's image must be a container image reference; the error names the field and the value.
func ExampleValidatePodMachineSpec() {
	spec := v1beta2.PodMachineSpec{Image: "kindest/node:v1.36.3"}
	fmt.Println(webhooks.ValidatePodMachineSpec(&spec, field.NewPath("spec")))

	spec.Image = "kindest/node:"
	fmt.Println(webhooks.ValidatePodMachineSpec(&spec, field.NewPath("spec")).ToAggregate())
	// Output:
	// []
	// spec.image: Invalid value: "kindest/node:": must be a container image reference such as "kindest/node:v1.36.3" or "registry.example.com:5000/node@sha256:<64 hex digits>"
}

// Controllers apply the defaults of the PodCluster webhook themselves, to read objects the webhook never saw.
func ExampleDefaultPodClusterSpec() {
	spec := v1beta2.PodClusterSpec{}
	webhooks.DefaultPodClusterSpec(&spec)
	fmt.Println(spec.ControlPlaneService.Type, spec.ControlPlaneService.Port)
	// Output:
	// ClusterIP 6443
}
