package webhooks

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
)

const immutable = "field is immutable"

// DefaultQuuxClusterSpec fills the unset load balancer port of spec.
func DefaultQuuxClusterSpec(spec *v1beta2.QuuxClusterSpec) {
	if spec.LoadBalancerPort == 0 {
		spec.LoadBalancerPort = v1beta2.DefaultLoadBalancerPort
	}
}

// ValidateQuuxClusterSpecUpdate checks that an update of a QuuxCluster's spec, found at path, keeps the load
// balancer port, and the control plane endpoint once set.
func ValidateQuuxClusterSpecUpdate(oldSpec, newSpec *v1beta2.QuuxClusterSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if oldSpec.LoadBalancerPort != newSpec.LoadBalancerPort {
		errs = append(errs, field.Forbidden(path.Child("loadBalancerPort"), immutable))
	}
	if !oldSpec.ControlPlaneEndpoint.IsZero() && oldSpec.ControlPlaneEndpoint != newSpec.ControlPlaneEndpoint {
		errs = append(errs, field.Forbidden(path.Child("controlPlaneEndpoint"), immutable+" once set"))
	}
	return errs
}

// DefaultQuuxMachineSpec fills the unset image and instance type of spec.
func DefaultQuuxMachineSpec(spec *v1beta2.QuuxMachineSpec) {
	if spec.Image == "" {
		spec.Image = v1beta2.DefaultImage
	}
	if spec.InstanceType == "" {
		spec.InstanceType = v1beta2.DefaultInstanceType
	}
}

// ValidateQuuxMachineSpec checks spec, found at path: a provider ID, when set, made by v1beta2.ProviderID.
func ValidateQuuxMachineSpec(spec *v1beta2.QuuxMachineSpec, path *field.Path) field.ErrorList {
	if spec.ProviderID == "" {
		return nil
	}
	if _, err := v1beta2.InstanceIDFromProviderID(spec.ProviderID); err != nil {
		return field.ErrorList{field.Invalid(path.Child("providerID"), spec.ProviderID,
			`must be "`+v1beta2.ProviderIDPrefix+`" followed by the instance ID`)}
	}
	return nil
}

// ValidateQuuxMachineTemplateSpec checks the templated spec of a QuuxMachineTemplate: ValidateQuuxMachineSpec,
// and no providerID.
func ValidateQuuxMachineTemplateSpec(spec *v1beta2.QuuxMachineSpec, path *field.Path) field.ErrorList {
	errs := ValidateQuuxMachineSpec(spec, path)
	if spec.ProviderID != "" {
		errs = append(errs, field.Forbidden(path.Child("providerID"), "must not be set in a template: every machine gets its own instance"))
	}
	return errs
}

// ValidateQuuxMachineSpecUpdate checks that an update of a QuuxMachine's spec, found at path, changes nothing
// but providerID and failureDomain from empty to a value.
func ValidateQuuxMachineSpecUpdate(oldSpec, newSpec *v1beta2.QuuxMachineSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if oldSpec.ProviderID != "" && oldSpec.ProviderID != newSpec.ProviderID {
		errs = append(errs, field.Forbidden(path.Child("providerID"), immutable+" once set"))
	}
	if oldSpec.FailureDomain != "" && oldSpec.FailureDomain != newSpec.FailureDomain {
		errs = append(errs, field.Forbidden(path.Child("failureDomain"), immutable+" once set"))
	}
	if oldSpec.Image != newSpec.Image {
		errs = append(errs, field.Forbidden(path.Child("image"), immutable))
	}
	if oldSpec.InstanceType != newSpec.InstanceType {
		errs = append(errs, field.Forbidden(path.Child("instanceType"), immutable))
	}
	return errs
}

// QuuxCluster is the admission webhook of QuuxCluster.
var QuuxCluster = admission.Webhook[*v1beta2.QuuxCluster, v1beta2.QuuxClusterSpec]{
	GroupKind:   v1beta2.GroupVersion.WithKind("QuuxCluster").GroupKind(),
	Spec:        func(c *v1beta2.QuuxCluster) *v1beta2.QuuxClusterSpec { return &c.Spec },
	DefaultSpec: DefaultQuuxClusterSpec, ValidateSpecUpdate: ValidateQuuxClusterSpecUpdate,
}

// QuuxMachine is the admission webhook of QuuxMachine.
var QuuxMachine = admission.Webhook[*v1beta2.QuuxMachine, v1beta2.QuuxMachineSpec]{
	GroupKind:   v1beta2.GroupVersion.WithKind("QuuxMachine").GroupKind(),
	Spec:        func(m *v1beta2.QuuxMachine) *v1beta2.QuuxMachineSpec { return &m.Spec },
	DefaultSpec: DefaultQuuxMachineSpec, ValidateSpec: ValidateQuuxMachineSpec, ValidateSpecUpdate: ValidateQuuxMachineSpecUpdate,
}

// QuuxClusterTemplate is the admission webhook of QuuxClusterTemplate: its templated spec is defaulted as a
// QuuxCluster's, and the template cannot change after creation.
var QuuxClusterTemplate = admission.Webhook[*v1beta2.QuuxClusterTemplate, v1beta2.QuuxClusterSpec]{
	GroupKind: v1beta2.GroupVersion.WithKind("QuuxClusterTemplate").GroupKind(), Template: true, TemplateMetadataMutable: true,
	Spec:        func(t *v1beta2.QuuxClusterTemplate) *v1beta2.QuuxClusterSpec { return &t.Spec.Template.Spec },
	DefaultSpec: DefaultQuuxClusterSpec,
}

// QuuxMachineTemplate is the admission webhook of QuuxMachineTemplate: its templated spec is defaulted as a
// QuuxMachine's, must not set providerID, and the template cannot change after creation.
var QuuxMachineTemplate = admission.Webhook[*v1beta2.QuuxMachineTemplate, v1beta2.QuuxMachineSpec]{
	GroupKind: v1beta2.GroupVersion.WithKind("QuuxMachineTemplate").GroupKind(), Template: true, TemplateMetadataMutable: true,
	Spec:        func(t *v1beta2.QuuxMachineTemplate) *v1beta2.QuuxMachineSpec { return &t.Spec.Template.Spec },
	DefaultSpec: DefaultQuuxMachineSpec, ValidateSpec: ValidateQuuxMachineTemplateSpec,
}
