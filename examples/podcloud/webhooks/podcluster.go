package webhooks

import (
	"fmt"
	"net"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
)

// DefaultControlPlanePort is the port of the API servers when spec.controlPlaneService.port is empty.
const DefaultControlPlanePort int32 = 6443

// immutable is the start of the detail of every error about a field that cannot change.
const immutable = "field is immutable"

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
// endpoint with both host and port, or neither.
func ValidatePodClusterSpec(spec *v1beta2.PodClusterSpec, path *field.Path) field.ErrorList {
	ep, epPath := spec.ControlPlaneEndpoint, path.Child("controlPlaneEndpoint")
	switch {
	case ep.Host != "" && ep.Port == 0:
		return field.ErrorList{field.Required(epPath.Child("port"), fmt.Sprintf("must be set when host is set (host %q)", ep.Host))}
	case ep.Host == "" && ep.Port != 0:
		return field.ErrorList{field.Required(epPath.Child("host"), fmt.Sprintf("must be set when port is set (port %d)", ep.Port))}
	}
	return nil
}

// ValidatePodClusterSpecUpdate checks that an update of a PodCluster's spec, found at path, keeps the fields
// that cannot change: namespace, controlPlaneService.type and .port, and controlPlaneEndpoint once it is set.
// Every error names the field, the new value and the old one.
func ValidatePodClusterSpecUpdate(oldSpec, newSpec *v1beta2.PodClusterSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if oldSpec.Namespace != newSpec.Namespace {
		errs = append(errs, changed(path.Child("namespace"), oldSpec.Namespace, newSpec.Namespace))
	}
	svc, oldSvc := newSpec.ControlPlaneService, oldSpec.ControlPlaneService
	if oldSvc.Type != svc.Type {
		errs = append(errs, changed(path.Child("controlPlaneService", "type"), string(oldSvc.Type), string(svc.Type)))
	}
	if oldSvc.Port != svc.Port {
		errs = append(errs, field.Invalid(path.Child("controlPlaneService", "port"), svc.Port, fmt.Sprintf("%s (was %d)", immutable, oldSvc.Port)))
	}
	if oldEP := oldSpec.ControlPlaneEndpoint; !oldEP.IsZero() && oldEP != newSpec.ControlPlaneEndpoint {
		errs = append(errs, field.Invalid(path.Child("controlPlaneEndpoint"), endpointString(newSpec.ControlPlaneEndpoint),
			fmt.Sprintf("%s once set (was %q)", immutable, endpointString(oldEP))))
	}
	return errs
}

// changed is the error of an immutable string field whose value changed from oldV to newV.
func changed(path *field.Path, oldV, newV string) *field.Error {
	return field.Invalid(path, newV, fmt.Sprintf("%s (was %q)", immutable, oldV))
}

// endpointString returns "host:port" of ep, or "" when ep is empty.
func endpointString(ep contract.APIEndpoint) string {
	if ep.IsZero() {
		return ""
	}
	return net.JoinHostPort(ep.Host, strconv.Itoa(int(ep.Port)))
}

// PodCluster is the defaulting and validating admission webhook of PodCluster: DefaultPodClusterSpec,
// ValidatePodClusterSpec, and ValidatePodClusterSpecUpdate on a change.
var PodCluster = admission.Webhook[*v1beta2.PodCluster, v1beta2.PodClusterSpec]{
	GroupKind: groupKind("PodCluster"), Spec: func(c *v1beta2.PodCluster) *v1beta2.PodClusterSpec { return &c.Spec },
	DefaultSpec: DefaultPodClusterSpec, ValidateSpec: ValidatePodClusterSpec, ValidateSpecUpdate: ValidatePodClusterSpecUpdate,
}

// groupKind returns the group and kind of a podcloud kind, which the webhooks' errors name.
func groupKind(kind string) schema.GroupKind { return v1beta2.GroupVersion.WithKind(kind).GroupKind() }
