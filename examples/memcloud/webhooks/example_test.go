package webhooks_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
)

// A MemCluster spec is defaulted, then validated; a bad subnet gets an error naming the field and the value.
func ExampleValidateMemClusterSpec() {
	spec := v1beta2.MemClusterSpec{Network: v1beta2.NetworkSpec{CIDR: "192.168.0.0/24"}}
	webhooks.DefaultMemClusterSpec(&spec)
	for _, s := range spec.Network.Subnets {
		fmt.Println(s.Name, s.CIDR)
	}
	fmt.Println("errors:", len(webhooks.ValidateMemClusterSpec(&spec, field.NewPath("spec"))))

	spec.Network.Subnets[1].CIDR = "192.168.1.0/25"
	for _, err := range webhooks.ValidateMemClusterSpec(&spec, field.NewPath("spec")) {
		fmt.Println(err)
	}
	// Output:
	// controlplane 192.168.0.0/25
	// worker 192.168.0.128/25
	// errors: 0
	// spec.network.subnets[1].cidr: Invalid value: "192.168.1.0/25": must be inside the network cidr "192.168.0.0/24"
}

// In a MemMachine's spec, providerID may go from empty to a value, flavor and tags change in place (on the
// running instance), and nothing else changes.
func ExampleValidateMemMachineSpecUpdate() {
	oldSpec := v1beta2.MemMachineSpec{Image: "ubuntu-24.04", Flavor: v1beta2.FlavorMedium}
	newSpec := oldSpec
	newSpec.ProviderID = v1beta2.ProviderID("i-1f2e3d4c")
	newSpec.Flavor, newSpec.Tags = v1beta2.FlavorLarge, map[string]string{"team": "blue"}
	fmt.Println(webhooks.ValidateMemMachineSpecUpdate(&oldSpec, &newSpec, field.NewPath("spec")))

	newSpec.Image = "ubuntu-26.04"
	fmt.Println(webhooks.ValidateMemMachineSpecUpdate(&oldSpec, &newSpec, field.NewPath("spec")).ToAggregate())
	// Output:
	// []
	// spec.image: Forbidden: field is immutable
}
