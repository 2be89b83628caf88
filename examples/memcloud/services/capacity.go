package services

import (
	"fmt"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// TemplateCapacity is what a machine made from a MemMachineTemplate offers, from its flavor
// (v1beta2.FlavorResources): the capacity.Func (capkit's package reconcile/capacity) of memcloud's template
// reconciler, which writes it to the template's status for the cluster autoscaler's scale from zero.
// memcloud's instances are linux/amd64.
func TemplateCapacity(t *v1beta2.MemMachineTemplate) (contract.MachineTemplateCapacity, error) {
	flavor := t.Spec.Template.Spec.Flavor
	if flavor == "" {
		flavor = v1beta2.DefaultFlavor
	}
	res, ok := v1beta2.FlavorResources[flavor]
	if !ok {
		return contract.MachineTemplateCapacity{}, fmt.Errorf("cannot size MemMachineTemplate %q: spec.template.spec.flavor %q is not one of %q", t.Name, flavor, v1beta2.Flavors)
	}
	return contract.MachineTemplateCapacity{Capacity: res.DeepCopy(),
		NodeInfo: contract.NodeInfo{Architecture: contract.ArchitectureAmd64, OperatingSystem: "linux"}}, nil
}
