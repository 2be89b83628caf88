package v1beta2

import "sigs.k8s.io/controller-runtime/pkg/conversion"

// MemCluster, MemMachine and MemMachineTemplate are the hubs of their kinds: the older API version v1beta1
// (package examples/memcloud/api/v1beta1) converts to and from them.
var (
	_ conversion.Hub = &MemCluster{}
	_ conversion.Hub = &MemMachine{}
	_ conversion.Hub = &MemMachineTemplate{}
)

// Hub marks MemCluster as the hub of the conversions between its API versions.
func (*MemCluster) Hub() {}

// Hub marks MemMachine as the hub of the conversions between its API versions.
func (*MemMachine) Hub() {}

// Hub marks MemMachineTemplate as the hub of the conversions between its API versions.
func (*MemMachineTemplate) Hub() {}
