package providertest

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/capkit/capkit/contract"
)

// BootstrapSecretType is the type Cluster API bootstrap providers give bootstrap data Secrets.
const BootstrapSecretType corev1.SecretType = "cluster.x-k8s.io/secret"

// ClusterGVK returns the GroupVersionKind of the core Cluster in API version v (v1beta1 or v1beta2).
func ClusterGVK(v contract.Version) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: contract.GroupName, Version: string(coreVersion(v)), Kind: "Cluster"}
}

// MachineGVK returns the GroupVersionKind of the core Machine in API version v (v1beta1 or v1beta2).
func MachineGVK(v contract.Version) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: contract.GroupName, Version: string(coreVersion(v)), Kind: "Machine"}
}

// coreVersion defaults an empty version to v1beta2, the current core API version.
func coreVersion(v contract.Version) contract.Version {
	if v == "" {
		return contract.V1Beta2
	}
	return v
}

// objectRef returns a reference in the shape of core API version v: {apiGroup, kind, name} for v1beta2,
// {apiVersion, kind, name, namespace} for v1beta1.
func objectRef(v contract.Version, gvk schema.GroupVersionKind, namespace, name string) map[string]any {
	if v == contract.V1Beta1 {
		return map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, "name": name, "namespace": namespace}
	}
	return map[string]any{"apiGroup": gvk.Group, "kind": gvk.Kind, "name": name}
}

// ClusterBuilder builds a core Cluster as an unstructured object, in either core API version. Start with
// NewCluster; every With method returns the builder.
type ClusterBuilder struct {
	version          contract.Version
	namespace, name  string
	labels           map[string]string
	annotations      map[string]string
	infraGVK         schema.GroupVersionKind
	infraName        string
	cpGVK            schema.GroupVersionKind
	cpName           string
	paused           bool
	endpoint         contract.APIEndpoint
	infraProvisioned bool
}

// NewCluster starts a Cluster in namespace with name, in core API version v1beta2.
func NewCluster(namespace, name string) *ClusterBuilder {
	return &ClusterBuilder{version: contract.V1Beta2, namespace: namespace, name: name}
}

// WithAPIVersion builds the Cluster in core API version v (contract.V1Beta1 or contract.V1Beta2).
func (b *ClusterBuilder) WithAPIVersion(v contract.Version) *ClusterBuilder {
	b.version = coreVersion(v)
	return b
}

// WithInfraRef sets spec.infrastructureRef to the InfraCluster of kind gvk named name, in the shape of the
// core API version.
func (b *ClusterBuilder) WithInfraRef(gvk schema.GroupVersionKind, name string) *ClusterBuilder {
	b.infraGVK, b.infraName = gvk, name
	return b
}

// WithControlPlaneRef sets spec.controlPlaneRef to the control plane of kind gvk named name.
func (b *ClusterBuilder) WithControlPlaneRef(gvk schema.GroupVersionKind, name string) *ClusterBuilder {
	b.cpGVK, b.cpName = gvk, name
	return b
}

// Paused sets spec.paused.
func (b *ClusterBuilder) Paused() *ClusterBuilder {
	b.paused = true
	return b
}

// WithControlPlaneEndpoint sets spec.controlPlaneEndpoint.
func (b *ClusterBuilder) WithControlPlaneEndpoint(host string, port int32) *ClusterBuilder {
	b.endpoint = contract.APIEndpoint{Host: host, Port: port}
	return b
}

// WithLabels adds labels.
func (b *ClusterBuilder) WithLabels(labels map[string]string) *ClusterBuilder {
	b.labels = addAll(b.labels, labels)
	return b
}

// WithAnnotations adds annotations.
func (b *ClusterBuilder) WithAnnotations(annotations map[string]string) *ClusterBuilder {
	b.annotations = addAll(b.annotations, annotations)
	return b
}

// InfrastructureProvisioned sets status.initialization.infrastructureProvisioned (v1beta2) or
// status.infrastructureReady (v1beta1), as Cluster API does once the InfraCluster is provisioned.
func (b *ClusterBuilder) InfrastructureProvisioned() *ClusterBuilder {
	b.infraProvisioned = true
	return b
}

// Build returns the Cluster.
func (b *ClusterBuilder) Build() *unstructured.Unstructured {
	u := newObject(ClusterGVK(b.version), b.namespace, b.name, b.labels, b.annotations)
	spec := map[string]any{}
	if b.infraName != "" {
		spec["infrastructureRef"] = objectRef(b.version, b.infraGVK, b.namespace, b.infraName)
	}
	if b.cpName != "" {
		spec["controlPlaneRef"] = objectRef(b.version, b.cpGVK, b.namespace, b.cpName)
	}
	if b.paused {
		spec["paused"] = true
	}
	if !b.endpoint.IsZero() {
		spec["controlPlaneEndpoint"] = map[string]any{"host": b.endpoint.Host, "port": int64(b.endpoint.Port)}
	}
	u.Object["spec"] = spec
	if b.infraProvisioned {
		_ = contract.Cluster(b.version).InfrastructureProvisioned().Set(u, true)
	}
	return u
}

// MachineBuilder builds a core Machine as an unstructured object, in either core API version. Start with
// NewMachine; every With method returns the builder.
type MachineBuilder struct {
	version          contract.Version
	namespace, name  string
	clusterName      string
	labels           map[string]string
	controlPlane     bool
	secret           string
	k8sVersion       string
	infraGVK         schema.GroupVersionKind
	infraName        string
	failureDomain    string
	providerID       string
	bootstrapCreated bool
	infraProvisioned bool
}

// NewMachine starts a worker Machine of the Cluster clusterName, with spec.clusterName and the cluster-name
// label set, in core API version v1beta2.
func NewMachine(namespace, name, clusterName string) *MachineBuilder {
	return &MachineBuilder{version: contract.V1Beta2, namespace: namespace, name: name, clusterName: clusterName}
}

// WithAPIVersion builds the Machine in core API version v (contract.V1Beta1 or contract.V1Beta2).
func (b *MachineBuilder) WithAPIVersion(v contract.Version) *MachineBuilder {
	b.version = coreVersion(v)
	return b
}

// ControlPlane makes the Machine a control-plane Machine (the cluster.x-k8s.io/control-plane label).
func (b *MachineBuilder) ControlPlane() *MachineBuilder {
	b.controlPlane = true
	return b
}

// WithBootstrapSecret sets spec.bootstrap.dataSecretName, as a bootstrap provider does when the data is ready.
func (b *MachineBuilder) WithBootstrapSecret(name string) *MachineBuilder {
	b.secret = name
	return b
}

// WithVersion sets spec.version, the Kubernetes version, e.g. "v1.36.3".
func (b *MachineBuilder) WithVersion(version string) *MachineBuilder {
	b.k8sVersion = version
	return b
}

// WithInfraRef sets spec.infrastructureRef to the InfraMachine of kind gvk named name, in the shape of the
// core API version.
func (b *MachineBuilder) WithInfraRef(gvk schema.GroupVersionKind, name string) *MachineBuilder {
	b.infraGVK, b.infraName = gvk, name
	return b
}

// WithFailureDomain sets spec.failureDomain.
func (b *MachineBuilder) WithFailureDomain(fd string) *MachineBuilder {
	b.failureDomain = fd
	return b
}

// WithProviderID sets spec.providerID, as Cluster API does once the InfraMachine reports one.
func (b *MachineBuilder) WithProviderID(id string) *MachineBuilder {
	b.providerID = id
	return b
}

// WithLabels adds labels.
func (b *MachineBuilder) WithLabels(labels map[string]string) *MachineBuilder {
	b.labels = addAll(b.labels, labels)
	return b
}

// BootstrapDataSecretCreated sets status.initialization.bootstrapDataSecretCreated (v1beta2) or
// status.bootstrapReady (v1beta1).
func (b *MachineBuilder) BootstrapDataSecretCreated() *MachineBuilder {
	b.bootstrapCreated = true
	return b
}

// InfrastructureProvisioned sets status.initialization.infrastructureProvisioned (v1beta2) or
// status.infrastructureReady (v1beta1).
func (b *MachineBuilder) InfrastructureProvisioned() *MachineBuilder {
	b.infraProvisioned = true
	return b
}

// Build returns the Machine.
func (b *MachineBuilder) Build() *unstructured.Unstructured {
	labels := addAll(map[string]string{contract.ClusterNameLabel: b.clusterName}, b.labels)
	if b.controlPlane {
		labels[contract.ControlPlaneLabel] = ""
	}
	u := newObject(MachineGVK(b.version), b.namespace, b.name, labels, nil)
	spec := map[string]any{"clusterName": b.clusterName, "bootstrap": map[string]any{}}
	if b.secret != "" {
		spec["bootstrap"] = map[string]any{"dataSecretName": b.secret}
	}
	if b.infraName != "" {
		spec["infrastructureRef"] = objectRef(b.version, b.infraGVK, b.namespace, b.infraName)
	}
	for k, v := range map[string]string{"version": b.k8sVersion, "failureDomain": b.failureDomain, "providerID": b.providerID} {
		if v != "" {
			spec[k] = v
		}
	}
	u.Object["spec"] = spec
	f := contract.Machine(b.version)
	if b.bootstrapCreated {
		_ = f.BootstrapDataSecretCreated().Set(u, true)
	}
	if b.infraProvisioned {
		_ = f.InfrastructureProvisioned().Set(u, true)
	}
	return u
}

// NewBootstrapSecret returns a bootstrap data Secret as a bootstrap provider writes it: type
// cluster.x-k8s.io/secret, the cluster-name label, key "value" holding value and key "format" holding
// "cloud-config" (change Data["format"] for ignition).
func NewBootstrapSecret(namespace, name, clusterName string, value []byte) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name,
			Labels: map[string]string{contract.ClusterNameLabel: clusterName},
		},
		Type: BootstrapSecretType,
		Data: map[string][]byte{
			contract.BootstrapDataKey:   append([]byte(nil), value...),
			contract.BootstrapFormatKey: []byte(contract.FormatCloudConfig),
		},
	}
}

// OwnerReference returns an owner reference to owner, which must carry its apiVersion and kind (as
// unstructured objects and objects read back through a client do) and its UID. controller marks the owner
// as the managing controller, as Cluster API does for an InfraCluster (owned by its Cluster) and an
// InfraMachine (owned by its Machine).
func OwnerReference(owner *unstructured.Unstructured, controller bool) metav1.OwnerReference {
	ref := metav1.OwnerReference{
		APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(),
	}
	if controller {
		ref.Controller = ptr.To(true)
		ref.BlockOwnerDeletion = ptr.To(true)
	}
	return ref
}

func newObject(gvk schema.GroupVersionKind, namespace, name string, labels, annotations map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	if len(labels) > 0 {
		u.SetLabels(labels)
	}
	if len(annotations) > 0 {
		u.SetAnnotations(annotations)
	}
	return u
}

func addAll(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]string{}
	}
	maps.Copy(dst, src)
	return dst
}
