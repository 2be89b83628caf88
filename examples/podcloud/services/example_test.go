package services_test

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// A machine's Pod runs the kind node image privileged, once, from the entrypoint of its bootstrap Secret, in
// the zone Cluster API chose, with the machine's cpu and memory as both requests and limits.
func ExampleBuildPod() {
	pod := services.BuildPod(services.PodSpec{
		Namespace: "target", Name: "c1-cp-x7k2p", Image: "kindest/node:v1.36.3",
		ServiceAccount: services.ServiceAccountName("c1"), Secret: services.SecretName("c1-cp-x7k2p"),
		Zone: "zone-a", ControlPlane: true, Port: 6443,
		Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
	})
	node := pod.Spec.Containers[0]
	fmt.Println(node.Image, *node.SecurityContext.Privileged, pod.Spec.RestartPolicy)
	fmt.Println(pod.Spec.ServiceAccountName, *pod.Spec.AutomountServiceAccountToken)
	fmt.Println(pod.Spec.NodeSelector[corev1.LabelTopologyZone], pod.Labels[services.LabelRole], node.Ports[0].ContainerPort)
	fmt.Println(strings.Join(node.Command, " "))
	fmt.Println(node.Resources.Requests.Cpu(), node.Resources.Limits.Cpu(), node.Resources.Requests.Memory(), node.Resources.Limits.Memory())
	// Output:
	// kindest/node:v1.36.3 true Never
	// c1-node false
	// zone-a control-plane 6443
	// /bin/bash /opt/podcloud/entrypoint.sh
	// 2 2 4Gi 4Gi
}

// A PodMachineTemplate with resources reports them as the capacity of its machines, which the cluster
// autoscaler reads to scale a MachineDeployment up from zero; one without reports none, since its Pods get the
// CPUs and memory of whichever node they land on.
func ExampleTemplateCapacity() {
	tmpl := &v1beta2.PodMachineTemplate{}
	tmpl.Name = "workers"
	tmpl.Spec.Template.Spec.Resources = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"),
	}
	c, err := services.TemplateCapacity(tmpl)
	fmt.Println(c.Capacity.Cpu(), c.Capacity.Memory(), c.NodeInfo.OperatingSystem, err)

	tmpl.Spec.Template.Spec.Resources = nil
	c, err = services.TemplateCapacity(tmpl)
	fmt.Println(len(c.Capacity), c.NodeInfo.OperatingSystem, err)
	// Output:
	// 2 4Gi linux <nil>
	// 0 linux <nil>
}

// The objects of a cluster are named after it, and shortened with a hash to fit a DNS label.
func ExampleServiceName() {
	fmt.Println(services.ServiceName("c1"), services.ServiceAccountName("c1"), services.SecretName("c1-md-0-x7k2p"))
	long := services.ServiceName(strings.Repeat("a", 60))
	fmt.Println(len(long), strings.HasSuffix(long, "-apiserver"), long == services.ServiceName(strings.Repeat("a", 60)))
	// Output:
	// c1-apiserver c1-node c1-md-0-x7k2p-bootstrap
	// 63 true true
}

// Only cloud-config bootstrap data runs in a Pod; anything else is a terminal error with a reason for the
// PodMachine's condition.
func ExampleRenderScript() {
	script, err := services.RenderScript([]byte("#cloud-config\nruncmd: [kubeadm join]\n"), scope.BootstrapFormatCloudConfig, "m-0")
	fmt.Println(strings.SplitN(string(script), "\n", 2)[0], err)

	_, err = services.RenderScript([]byte(`{"ignition":{}}`), scope.BootstrapFormatIgnition, "m-0")
	fmt.Println(step.TerminalReason(err))
	// Output:
	// #!/bin/bash <nil>
	// UnsupportedBootstrapFormat
}
