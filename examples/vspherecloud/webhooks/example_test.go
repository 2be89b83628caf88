package webhooks_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/webhooks"
)

// A VSphereCluster's server is checked as the controllers will read it; the error names the field and the value.
func ExampleValidateVSphereClusterSpec() {
	spec := v1beta2.VSphereClusterSpec{Server: "vcenter.example.com", Datacenter: "DC0"}
	fmt.Println(webhooks.ValidateVSphereClusterSpec(&spec, field.NewPath("spec")))

	spec.Server = "vcenter.example.com:https"
	fmt.Println(webhooks.ValidateVSphereClusterSpec(&spec, field.NewPath("spec")).ToAggregate())
	// Output:
	// []
	// spec.server: Invalid value: "vcenter.example.com:https": must be a host name, host:port or https URL of the vCenter, such as "vcenter.example.com" or "https://vcenter.example.com/sdk"
}

// Nothing of a VSphereMachine changes after creation but providerID, which the controller sets once.
func ExampleValidateVSphereMachineSpecUpdate() {
	oldSpec := v1beta2.VSphereMachineSpec{Template: "ubuntu-2404-kube-v1.36.3", NumCPUs: 2}
	newSpec := oldSpec
	newSpec.ProviderID = "vsphere://4207d9e2-5c33-4a2c-9b65-61b4a3e0c9a1"
	fmt.Println(webhooks.ValidateVSphereMachineSpecUpdate(&oldSpec, &newSpec, field.NewPath("spec")))

	newSpec.NumCPUs = 4
	fmt.Println(webhooks.ValidateVSphereMachineSpecUpdate(&oldSpec, &newSpec, field.NewPath("spec")).ToAggregate())
	// Output:
	// []
	// spec.numCPUs: Invalid value: 4: field is immutable (was 2)
}
