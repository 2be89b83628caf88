package webhooks

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// MemClusterTemplate is the defaulting and validating admission webhook of MemClusterTemplate: the template's
// spec.template.spec is defaulted and validated as a MemCluster's spec, and the template cannot change after
// creation (its metadata may), except in the server-side-apply dry-runs of Cluster API's topology controller.
var MemClusterTemplate = admission.Webhook[*v1beta2.MemClusterTemplate, v1beta2.MemClusterSpec]{
	GroupKind: groupKind("MemClusterTemplate"), Template: true, TemplateMetadataMutable: true,
	Spec:        func(t *v1beta2.MemClusterTemplate) *v1beta2.MemClusterSpec { return &t.Spec.Template.Spec },
	DefaultSpec: DefaultMemClusterSpec, ValidateSpec: ValidateMemClusterSpec,
}

// MemMachineTemplate is the defaulting and validating admission webhook of MemMachineTemplate: the template's
// spec.template.spec is defaulted and validated as a MemMachine's spec, must not set providerID, and the
// template cannot change after creation, except in the topology controller's dry-runs.
var MemMachineTemplate = admission.Webhook[*v1beta2.MemMachineTemplate, v1beta2.MemMachineSpec]{
	GroupKind: groupKind("MemMachineTemplate"), Template: true, TemplateMetadataMutable: true,
	Spec:        func(t *v1beta2.MemMachineTemplate) *v1beta2.MemMachineSpec { return &t.Spec.Template.Spec },
	DefaultSpec: DefaultMemMachineSpec, ValidateSpec: ValidateMemMachineTemplateSpec,
	KeepStatus: true,
}

// ValidateMemMachineTemplateSpec checks the spec of a MemMachineTemplate, found at path: ValidateMemMachineSpec,
// and no providerID.
func ValidateMemMachineTemplateSpec(spec *v1beta2.MemMachineSpec, path *field.Path) field.ErrorList {
	errs := ValidateMemMachineSpec(spec, path)
	if spec.ProviderID != "" {
		errs = append(errs, field.Forbidden(path.Child("providerID"), "must not be set in a template: every machine gets its own instance"))
	}
	return errs
}
