package main

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Ports of the manager.
const (
	webhookPort = 9443
	healthPort  = 9440
	certDir     = "/tmp/k8s-webhook-server/serving-certs" // controller-runtime's default
)

// selector selects the manager's pods.
var selector = map[string]string{"control-plane": managerName}

func namespaceObject() object {
	return object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": namespace}}
}

// rbacObjects returns the manager's ClusterRole (controller-gen's manager-role, renamed), the ServiceAccount and
// bindings, the leader-election Role, and the ClusterRole that gives Cluster API's controllers access to
// memcloud's kinds: memcloud's group is not infrastructure.cluster.x-k8s.io, so Cluster API has no access to
// it unless a ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager grants it.
func rbacObjects(roles, crds []object) ([]object, error) {
	var out []object
	found := false
	for _, r := range roles {
		if kind(r) != "ClusterRole" || meta(r)["name"] != "manager-role" {
			return nil, fmt.Errorf("cannot use %s from the RBAC role file: want only ClusterRole/manager-role", ref(r))
		}
		meta(r)["name"] = prefix + "manager-role"
		out = append(out, r)
		found = true
	}
	if !found {
		return nil, fmt.Errorf("cannot find ClusterRole/manager-role in the RBAC role file: run controller-gen rbac first")
	}

	var group string
	var resources []string
	for _, c := range crds {
		spec, _ := c["spec"].(map[string]any)
		g, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		plural, _ := names["plural"].(string)
		if g == "" || plural == "" || (group != "" && g != group) {
			return nil, fmt.Errorf("cannot read the group and plural of %s, or it is not in group %q", ref(c), group)
		}
		group = g
		resources = append(resources, plural)
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: serviceAccount, Namespace: namespace}}
	typed := []runtime.Object{
		&corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: metav1.ObjectMeta{Name: serviceAccount}},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
			ObjectMeta: metav1.ObjectMeta{Name: prefix + "manager-rolebinding"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: prefix + "manager-role"},
			Subjects:   subject,
		},
		&rbacv1.Role{
			TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "Role"),
			ObjectMeta: metav1.ObjectMeta{Name: prefix + "leader-election-role"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
					Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
				{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
			},
		},
		&rbacv1.RoleBinding{
			TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "RoleBinding"),
			ObjectMeta: metav1.ObjectMeta{Name: prefix + "leader-election-rolebinding"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: prefix + "leader-election-role"},
			Subjects:   subject,
		},
		&rbacv1.ClusterRole{
			TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"),
			ObjectMeta: metav1.ObjectMeta{Name: prefix + "capi-aggregated-role",
				Labels: map[string]string{"cluster.x-k8s.io/aggregate-to-manager": "true"}},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{group}, Resources: resources,
				Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}}},
		},
	}
	objs, err := toObjects(typed...)
	if err != nil {
		return nil, err
	}
	return append(out, objs...), nil
}

// managerObjects returns the webhook Service and the manager's Deployment.
func managerObjects() []runtime.Object {
	svc := &corev1.Service{
		TypeMeta:   typeMeta("v1", "Service"),
		ObjectMeta: metav1.ObjectMeta{Name: webhookService},
		Spec: corev1.ServiceSpec{
			Selector: selector,
			Ports:    []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromString("webhook-server"), Protocol: corev1.ProtocolTCP}},
		},
	}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromString("healthz")}}}
	}
	container := corev1.Container{
		Name:    "manager",
		Image:   image,
		Command: []string{"/manager"},
		// The flags of examples/memcloud/cmd/manager.
		Args: []string{"--leader-elect", fmt.Sprintf("--health-probe-bind-address=:%d", healthPort),
			fmt.Sprintf("--webhook-port=%d", webhookPort), "--webhook-cert-dir=" + certDir},
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
	dep := &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: metav1.ObjectMeta{Name: managerName, Labels: selector},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: selector},
				Spec: corev1.PodSpec{
					ServiceAccountName:            serviceAccount,
					TerminationGracePeriodSeconds: ptr.To[int64](10),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{container},
					Volumes: []corev1.Volume{{Name: "cert", VolumeSource: corev1.VolumeSource{
						Secret: &corev1.SecretVolumeSource{SecretName: certSecret}}}},
					Tolerations: []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}},
				},
			},
		},
	}
	return []runtime.Object{svc, dep}
}

// certificateObjects returns the cert-manager Issuer and Certificate of the webhook server (cert-manager types
// are written as maps, to keep cert-manager out of the module).
func certificateObjects() []object {
	host := webhookService + "." + namespace + ".svc"
	return []object{
		{"apiVersion": "cert-manager.io/v1", "kind": "Issuer", "metadata": map[string]any{"name": issuerName},
			"spec": map[string]any{"selfSigned": map[string]any{}}},
		{"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": map[string]any{"name": certificateName},
			"spec": map[string]any{
				"dnsNames":   []any{host, host + ".cluster.local"},
				"issuerRef":  map[string]any{"kind": "Issuer", "name": issuerName},
				"secretName": certSecret,
			}},
	}
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}
