package webhooks

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
)

// DefaultControlPlanePort is the port of the API servers when spec.controlPlaneService.port is empty.
const DefaultControlPlanePort int32 = 6443

// DefaultPodClusterSpec fills the unset fields of spec: the control plane Service's type (ClusterIP) and port
// (DefaultControlPlanePort). It never overwrites a value that is set, so controllers can call it to read a
// PodCluster the way the webhook would have stored it.
func DefaultPodClusterSpec(spec *v1beta2.PodClusterSpec) {
	if spec.ControlPlaneService.Type == "" {
		spec.ControlPlaneService.Type = v1beta2.ServiceClusterIP
	}
	if spec.ControlPlaneService.Port == 0 {
		spec.ControlPlaneService.Port = DefaultControlPlanePort
	}
}

// ValidatePodClusterSpec checks spec, found at path, for what the CRD schema cannot: a control plane
// endpoint with both host and port, or neither (admission.ValidateEndpoint).
func ValidatePodClusterSpec(spec *v1beta2.PodClusterSpec, path *field.Path) field.ErrorList {
	return admission.ValidateEndpoint(path.Child("controlPlaneEndpoint"), spec.ControlPlaneEndpoint)
}

// ValidatePodClusterSpecUpdate checks that an update of a PodCluster's spec, found at path, keeps the fields
// that cannot change: namespace, controlPlaneService.type and .port (admission.ValidateUnchanged), and
// controlPlaneEndpoint once it is set (admission.ValidateEndpointUpdate). Every error names the field, the new
// value and the old one.
func ValidatePodClusterSpecUpdate(oldSpec, newSpec *v1beta2.PodClusterSpec, path *field.Path) field.ErrorList {
	errs := admission.ValidateUnchanged(path.Child("namespace"), oldSpec.Namespace, newSpec.Namespace)
	svc, oldSvc, svcPath := newSpec.ControlPlaneService, oldSpec.ControlPlaneService, path.Child("controlPlaneService")
	errs = append(errs, admission.ValidateUnchanged(svcPath.Child("type"), oldSvc.Type, svc.Type)...)
	errs = append(errs, admission.ValidateUnchanged(svcPath.Child("port"), oldSvc.Port, svc.Port)...)
	return append(errs, admission.ValidateEndpointUpdate(path.Child("controlPlaneEndpoint"), oldSpec.ControlPlaneEndpoint, newSpec.ControlPlaneEndpoint)...)
}

// PodCluster is the defaulting and validating admission webhook of PodCluster: DefaultPodClusterSpec,
// ValidatePodClusterSpec, and ValidatePodClusterSpecUpdate on a change.
var PodCluster = admission.Webhook[*v1beta2.PodCluster, v1beta2.PodClusterSpec]{
	GroupKind: groupKind("PodCluster"), Spec: func(c *v1beta2.PodCluster) *v1beta2.PodClusterSpec { return &c.Spec },
	DefaultSpec: DefaultPodClusterSpec, ValidateSpec: ValidatePodClusterSpec, ValidateSpecUpdate: ValidatePodClusterSpecUpdate,
}

// groupKind returns the group and kind of a podcloud kind, which the webhooks' errors name.
func groupKind(kind string) schema.GroupKind { return v1beta2.GroupVersion.WithKind(kind).GroupKind() }
