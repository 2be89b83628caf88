package services

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
)

// OperatingSystem is the operating system of podcloud's machines: the node image runs systemd and the kubelet
// on Linux.
const OperatingSystem = "linux"

// TemplateCapacity is what a machine made from a PodMachineTemplate offers: the capacity.Func (capkit's
// package reconcile/capacity) of podcloud's template reconciler, which writes it to the template's status for
// the cluster autoscaler's scale from zero.
//
// The capacity is spec.template.spec.resources, the node container's requests and limits. Without them it is
// empty: a Pod without limits gets the CPUs and memory of whichever node the scheduler picks, which the template
// cannot know, and a wrong capacity would have the autoscaler add machines that cannot run the Pods it meant
// them for. A resource left out (cpu but no memory) is left out of the capacity for the same reason. The node
// info is always operatingSystem linux; the architecture is left out, as nothing in the PodMachine pins the Pod
// to the nodes of one architecture.
//
// Invalid resources (see webhooks.ValidateResources), which the webhook keeps out, are an error naming the field.
func TemplateCapacity(t *v1beta2.PodMachineTemplate) (contract.MachineTemplateCapacity, error) {
	res := t.Spec.Template.Spec.Resources
	if errs := webhooks.ValidateResources(field.NewPath("spec", "template", "spec", "resources"), res); len(errs) > 0 {
		return contract.MachineTemplateCapacity{}, fmt.Errorf("cannot size PodMachineTemplate %q: %w", t.Name, errs.ToAggregate())
	}
	c := contract.MachineTemplateCapacity{NodeInfo: contract.NodeInfo{OperatingSystem: OperatingSystem}}
	if len(res) > 0 {
		c.Capacity = res.DeepCopy()
	}
	return c, nil
}
