package components

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Ports and folders of the manager.
const (
	webhookPort = 9443
	healthPort  = 9440
	certDir     = "/tmp/k8s-webhook-server/serving-certs" // controller-runtime's default
)

// namespaceObject returns the Namespace of the components.
func namespaceObject(n names) object {
	return object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": n.namespace}}
}

// managerArgs returns the arguments of the manager container: the flags every manager gets, then extra.
func managerArgs(extra []string) []string {
	args := []string{"--leader-elect", fmt.Sprintf("--health-probe-bind-address=:%d", healthPort),
		fmt.Sprintf("--webhook-port=%d", webhookPort), "--webhook-cert-dir=" + certDir}
	return append(args, extra...)
}

// managerObjects returns the webhook Service and the manager's Deployment, whose container runs image with the
// standard arguments followed by extraArgs.
func managerObjects(n names, image string, extraArgs []string) []runtime.Object {
	selector := map[string]string{"control-plane": n.manager}
	svc := &corev1.Service{
		TypeMeta:   typeMeta("v1", "Service"),
		ObjectMeta: metav1.ObjectMeta{Name: n.webhookService},
		Spec: corev1.ServiceSpec{
			Selector: selector,
			Ports:    []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromString("webhook-server"), Protocol: corev1.ProtocolTCP}},
		},
	}
	dep := &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: metav1.ObjectMeta{Name: n.manager, Labels: selector},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: selector},
				Spec: corev1.PodSpec{
					ServiceAccountName:            n.serviceAccount,
					TerminationGracePeriodSeconds: ptr.To[int64](10),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{managerContainer(image, extraArgs)},
					Volumes: []corev1.Volume{{Name: "cert", VolumeSource: corev1.VolumeSource{
						Secret: &corev1.SecretVolumeSource{SecretName: n.certSecret}}}},
					Tolerations: []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}},
				},
			},
		},
	}
	return []runtime.Object{svc, dep}
}

// managerContainer returns the container named manager, which runs /manager from image.
func managerContainer(image string, extraArgs []string) corev1.Container {
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromString("healthz")}}}
	}
	return corev1.Container{
		Name:    "manager",
		Image:   image,
		Command: []string{"/manager"},
		Args:    managerArgs(extraArgs),
		Ports: []corev1.ContainerPort{
			{Name: "webhook-server", ContainerPort: webhookPort, Protocol: corev1.ProtocolTCP},
			{Name: "healthz", ContainerPort: healthPort, Protocol: corev1.ProtocolTCP},
		},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
		LivenessProbe:  probe("/healthz"),
		ReadinessProbe: probe("/readyz"),
		VolumeMounts:   []corev1.VolumeMount{{Name: "cert", MountPath: certDir, ReadOnly: true}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			RunAsUser:                ptr.To[int64](65532),
			RunAsGroup:               ptr.To[int64](65532),
		},
	}
}
