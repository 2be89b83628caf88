package webhooks

import (
	"context"
	"fmt"
	"net"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract"
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
func ValidatePodClusterSpec(path *field.Path, spec v1beta2.PodClusterSpec) field.ErrorList {
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
func ValidatePodClusterSpecUpdate(path *field.Path, oldSpec, newSpec v1beta2.PodClusterSpec) field.ErrorList {
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

// PodCluster is the defaulting and validating admission webhook of PodCluster.
type PodCluster struct{}

var (
	_ admission.Defaulter[*v1beta2.PodCluster] = PodCluster{}
	_ admission.Validator[*v1beta2.PodCluster] = PodCluster{}
)

// Default fills the unset fields of the PodCluster's spec; see DefaultPodClusterSpec.
func (PodCluster) Default(_ context.Context, c *v1beta2.PodCluster) error {
	DefaultPodClusterSpec(&c.Spec)
	return nil
}

// ValidateCreate checks a new PodCluster; see ValidatePodClusterSpec.
func (PodCluster) ValidateCreate(_ context.Context, c *v1beta2.PodCluster) (admission.Warnings, error) {
	return nil, invalid("PodCluster", c.Name, ValidatePodClusterSpec(field.NewPath("spec"), c.Spec))
}

// ValidateUpdate checks a changed PodCluster: the new spec must keep the immutable fields (see
// ValidatePodClusterSpecUpdate) and, unless the PodCluster is being deleted, be valid.
func (PodCluster) ValidateUpdate(_ context.Context, oldC, newC *v1beta2.PodCluster) (admission.Warnings, error) {
	path := field.NewPath("spec")
	errs := ValidatePodClusterSpecUpdate(path, oldC.Spec, newC.Spec)
	if newC.DeletionTimestamp.IsZero() { // never block the removal of a finalizer
		errs = append(errs, ValidatePodClusterSpec(path, newC.Spec)...)
	}
	return nil, invalid("PodCluster", newC.Name, errs)
}

// ValidateDelete accepts every delete.
func (PodCluster) ValidateDelete(context.Context, *v1beta2.PodCluster) (admission.Warnings, error) {
	return nil, nil
}

// invalid returns nil for no errors, else the Invalid API error the API server returns to the client.
func invalid(kind, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(v1beta2.GroupVersion.WithKind(kind).GroupKind(), name, errs)
}
