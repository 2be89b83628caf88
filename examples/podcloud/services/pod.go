package services

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/webhooks"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/kubeobjects"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// PodPhaseDeleted is the PodMachine's status.podPhase once its Pod was deleted behind podcloud's back.
const PodPhaseDeleted = "Deleted"

// DefaultImageRepository is the repository of the node image a Pod runs when the PodMachine names none: the
// kind node image, tagged with the Machine's Kubernetes version.
const DefaultImageRepository = "kindest/node"

// Pod is the step that keeps a machine's Pod: a privileged Pod of the node image that runs the bootstrap
// Secret's entrypoint, as the PodCluster's ServiceAccount, in the Machine's failure domain. It records the
// Pod in spec.providerID and sets status.addresses (the Pod IPs and host name), status.failureDomain (the
// zone of the Pod's node) and, once the Pod runs and has an IP, the provisioned flag.
//
// A machine gets one Pod, ever (ensure.CreateOnce): a Pod deleted behind podcloud's back, or one that
// ended (phase Failed or Succeeded), is a terminal error on the PodReady condition, so that the PodMachine's
// Ready condition goes False and a MachineHealthCheck that watches the Machine's InfrastructureReady
// condition (or the Node the Pod no longer runs) replaces the Machine. Booting the same Machine twice would
// run bootstrap data meant for one use.
type Pod struct {
	target client.Client
	nodes  client.Reader
	lookup ClusterLookup
}

// NewPod returns the Pod step on the target cluster: nodes reads the target's nodes (for their zones),
// lookup finds the machine's PodCluster.
func NewPod(target client.Client, nodes client.Reader, lookup ClusterLookup) (*Pod, error) {
	if target == nil || nodes == nil || lookup == nil {
		return nil, errors.New("cannot create the pod step: the target client, the node reader and the cluster lookup must not be nil")
	}
	return &Pod{target: target, nodes: nodes, lookup: lookup}, nil
}

// PodSpec is what the Pod step wants of a machine's Pod.
type PodSpec struct {
	Namespace, Name, Image, ServiceAccount, Secret, Zone string
	ControlPlane                                         bool
	Port                                                 int32
	// Resources are the cpu and memory of the node container, as both its requests and its limits; empty for
	// neither.
	Resources corev1.ResourceList
}

// BuildPod returns the Pod of spec. The node image needs a privileged container (it runs systemd,
// containerd and the kubelet, which mount file systems and set up networking), /lib/modules of the host, and
// writable, non-overlay storage for containerd: see the provider's documentation. spec.Resources become the
// container's requests and limits, equal, so that the machine gets what the scheduler reserved for it and no
// more.
func BuildPod(s PodSpec) *corev1.Pod {
	role := RoleWorker
	if s.ControlPlane {
		role = RoleControlPlane
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name, Labels: map[string]string{LabelRole: role}},
		Spec: corev1.PodSpec{
			ServiceAccountName:           s.ServiceAccount,
			AutomountServiceAccountToken: ptr.To(false),
			RestartPolicy:                corev1.RestartPolicyNever, // a machine boots once; a dead one is replaced
			Containers: []corev1.Container{{
				Name: "node", Image: s.Image,
				Command:         []string{"/bin/bash", MountPath + "/" + EntrypointFile},
				SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "bootstrap", MountPath: MountPath, ReadOnly: true},
					{Name: "lib-modules", MountPath: "/lib/modules", ReadOnly: true},
					{Name: "containerd", MountPath: "/var/lib/containerd"},
					{Name: "run", MountPath: "/run"},
					{Name: "tmp", MountPath: "/tmp"},
				},
			}},
			Volumes: []corev1.Volume{
				{Name: "bootstrap", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: s.Secret, DefaultMode: ptr.To[int32](0o500)}}},
				{Name: "lib-modules", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/lib/modules"}}},
				{Name: "containerd", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "run", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
				{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
			},
		},
	}
	if len(validation.IsDNS1123Label(s.Name)) == 0 {
		pod.Spec.Hostname = s.Name
	}
	if s.ControlPlane {
		pod.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "apiserver", ContainerPort: s.Port, Protocol: corev1.ProtocolTCP}}
	}
	if s.Zone != "" {
		pod.Spec.NodeSelector = map[string]string{corev1.LabelTopologyZone: s.Zone}
	}
	if len(s.Resources) > 0 {
		pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: s.Resources.DeepCopy(), Limits: s.Resources.DeepCopy()}
	}
	return pod
}

// pods are the machine Pods of namespace ns.
func pods(c client.Client, ns string) (ensure.Resource[PodSpec, *corev1.Pod], error) {
	return kubeobjects.New(c, kubeobjects.Kind[PodSpec, *corev1.Pod]{
		Object:    &corev1.Pod{},
		List:      &corev1.PodList{},
		Namespace: ns,
		Validate: func(s PodSpec) error {
			var errs []string
			for _, n := range []struct{ field, value string }{{"name", s.Name}, {"service account", s.ServiceAccount}, {"secret", s.Secret}} {
				for _, m := range validation.IsDNS1123Subdomain(n.value) {
					errs = append(errs, n.field+": "+m)
				}
			}
			if s.Image == "" {
				errs = append(errs, "image: must not be empty")
			}
			if s.ControlPlane {
				for _, m := range validation.IsValidPortNum(int(s.Port)) {
					errs = append(errs, "port: "+m)
				}
			}
			for _, m := range validation.IsValidLabelValue(s.Zone) {
				errs = append(errs, "zone: "+m)
			}
			for _, e := range webhooks.ValidateResources(field.NewPath("resources"), s.Resources) {
				errs = append(errs, e.Error())
			}
			if len(errs) > 0 {
				return fmt.Errorf("pod %q: %s", s.Name, strings.Join(errs, "; "))
			}
			return nil
		},
		Build: func(s PodSpec) (*corev1.Pod, error) { return BuildPod(s), nil },
		Pending: func(pod *corev1.Pod) (string, string, bool) {
			if pod.Status.Phase != corev1.PodPending && pod.Status.Phase != "" {
				return "", "", false
			}
			where := "not scheduled yet"
			if pod.Spec.NodeName != "" {
				where = "on node " + pod.Spec.NodeName
			}
			return ReasonPodPending, fmt.Sprintf("pod %s is Pending, %s", pod.Name, where), true
		},
	})
}

func (p *Pod) tracker(s MachineScope) (scope.ResourceTracker, error) {
	return scope.ProviderIDTracker(s, s.InfraMachine(), KeyPod, v1beta2.ProviderID, v1beta2.PodIDFromProviderID)
}

// Reconcile ensures the Pod exists and reports it.
func (p *Pod) Reconcile(ctx context.Context, s MachineScope) (step.Result, error) {
	pm := s.InfraMachine()
	t, ok, err := target(ctx, p.lookup, s)
	if err != nil || !ok {
		return waitingForPodCluster(err)
	}
	image := pm.Spec.Image
	if image == "" {
		if s.Machine().Version == "" {
			return step.Result{}, step.Terminal(conditions.ReasonInvalidParameters,
				errors.New("spec.image is empty and the Machine has no spec.version to pick the kind node image by"))
		}
		image = DefaultImageRepository + ":" + s.Machine().Version
	}
	tracker, err := p.tracker(s)
	if err != nil {
		return step.Result{}, err
	}
	zone := cmp.Or(s.Machine().FailureDomain, pm.Spec.FailureDomain)
	spec := PodSpec{Namespace: t.namespace, Name: pm.Name, Image: image, ServiceAccount: t.serviceAccount,
		Secret: SecretName(pm.Name), Zone: zone, ControlPlane: s.Machine().ControlPlane, Port: t.port, Resources: pm.Spec.Resources}
	res, err := ensure.Exists(ctx, tracker, KeyPod, p.resourceOrNil(t.namespace), ensure.Given(spec),
		clusterTags(s.Cluster().Name), ensure.CreateOnce())
	if step.TerminalReason(err) == conditions.ReasonResourceDeleted {
		pm.Status.PodPhase = PodPhaseDeleted
	}
	if err != nil {
		return step.Result{}, err
	}
	pod := res.Observed
	pm.Status.PodPhase, pm.Status.NodeName = string(pod.Status.Phase), pod.Spec.NodeName
	switch {
	case pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded:
		return step.Result{}, step.Terminal(ReasonPodFailed,
			fmt.Errorf("pod %q ended with phase %s (%s): the machine is not booted again", pod.Name, pod.Status.Phase, cmp.Or(pod.Status.Reason, "no reason given")))
	case !res.Result.Done:
		return res.Result, nil
	case pod.Status.PodIP == "":
		return step.Result{Reason: ReasonPodPending, Message: "pod " + pod.Name + " runs but has no IP yet"}, nil
	}
	pm.SetAddresses(addresses(pod))
	if err := p.setFailureDomain(ctx, pm, zone, pod.Spec.NodeName); err != nil {
		return step.Result{}, err
	}
	pm.Status.ObservedGeneration = pm.Generation
	pm.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// resourceOrNil returns the Pod resource of namespace ns; it fails only on a nil client, ruled out by NewPod.
func (p *Pod) resourceOrNil(ns string) ensure.Resource[PodSpec, *corev1.Pod] {
	r, _ := pods(p.target, ns)
	return r
}

// addresses are the Pod's IPs and its host name.
func addresses(pod *corev1.Pod) []contract.MachineAddress {
	var out []contract.MachineAddress
	for _, ip := range pod.Status.PodIPs {
		out = append(out, contract.MachineAddress{Type: contract.MachineInternalIP, Address: ip.IP})
	}
	if len(out) == 0 {
		out = append(out, contract.MachineAddress{Type: contract.MachineInternalIP, Address: pod.Status.PodIP})
	}
	return append(out, contract.MachineAddress{Type: contract.MachineHostName, Address: cmp.Or(pod.Spec.Hostname, pod.Name)})
}

// setFailureDomain sets status.failureDomain to the zone the Pod was placed in: the one asked for, or the
// zone label of its node, read once.
func (p *Pod) setFailureDomain(ctx context.Context, pm *v1beta2.PodMachine, zone, nodeName string) error {
	switch {
	case zone != "":
		pm.SetStatusFailureDomain(zone)
		return nil
	case pm.Status.FailureDomain != "" || nodeName == "" || pm.IsProvisioned():
		return nil // read while provisioning only: a node without a zone label is not read again
	}
	node := &corev1.Node{}
	if err := p.nodes.Get(ctx, client.ObjectKey{Name: nodeName}, node); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("cannot read node %q: %w", nodeName, err))
	}
	pm.SetStatusFailureDomain(node.Labels[corev1.LabelTopologyZone])
	return nil
}

// Delete deletes the Pod, gracefully, and waits until it is gone.
func (p *Pod) Delete(ctx context.Context, s MachineScope) (step.Result, error) {
	tracker, err := p.tracker(s)
	if err != nil {
		return step.Result{}, err
	}
	return ensure.Deleted(ctx, tracker, KeyPod, p.resourceOrNil(deleteNamespace(ctx, p.lookup, s)))
}
