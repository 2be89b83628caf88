package services

import (
	"fmt"

	"github.com/capkit/capkit/contract/templates"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// TemplateCapacity is what a machine made from a MemMachineTemplate offers, from its flavor
// (v1beta2.FlavorResources): the templates.CapacityFunc of memcloud's template reconciler, which writes it to the
// template's status for the cluster autoscaler's scale from zero. memcloud's instances are linux/amd64.
func TemplateCapacity(t *v1beta2.MemMachineTemplate) (templates.Capacity, error) {
	flavor := t.Spec.Template.Spec.Flavor
	if flavor == "" {
		flavor = v1beta2.DefaultFlavor
	}
	res, ok := v1beta2.FlavorResources[flavor]
	if !ok {
		return templates.Capacity{}, fmt.Errorf("cannot size MemMachineTemplate %q: spec.template.spec.flavor %q is not one of %q", t.Name, flavor, v1beta2.Flavors)
	}
	return templates.Capacity{Capacity: res.DeepCopy(),
		NodeInfo: templates.NodeInfo{Architecture: templates.ArchitectureAmd64, OperatingSystem: "linux"}}, nil
}
