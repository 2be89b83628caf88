package webhooks

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
)

// ValidatePodMachineTemplateSpec checks the spec.template.spec of a PodMachineTemplate, found at path, as
// ValidatePodMachineSpec checks a PodMachine's, and rejects a providerID: every PodMachine made from the
// template gets its own Pod.
func ValidatePodMachineTemplateSpec(spec *v1beta2.PodMachineSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	s := *spec
	if s.ProviderID != "" {
		errs = append(errs, field.Invalid(path.Child("providerID"), s.ProviderID,
			"must be empty in a template: every PodMachine made from it gets its own Pod"))
		s.ProviderID = "" // reported once, not also as unparsable
	}
	return append(errs, ValidatePodMachineSpec(&s, path)...)
}

// PodMachineTemplate is the validating admission webhook of PodMachineTemplate: spec.template.spec is checked
// by ValidatePodMachineTemplateSpec, and the spec cannot change after creation, except in the
// server-side-apply dry-runs of Cluster API's topology controller.
var PodMachineTemplate = admission.Webhook[*v1beta2.PodMachineTemplate, v1beta2.PodMachineSpec]{
	GroupKind: groupKind("PodMachineTemplate"), Template: true,
	Spec:         func(t *v1beta2.PodMachineTemplate) *v1beta2.PodMachineSpec { return &t.Spec.Template.Spec },
	ValidateSpec: ValidatePodMachineTemplateSpec,
}

// PodClusterTemplate is the defaulting and validating admission webhook of PodClusterTemplate: the template's
// spec.template.spec is defaulted and checked as a PodCluster's spec, and the spec cannot change after
// creation, except in the topology controller's dry-runs.
var PodClusterTemplate = admission.Webhook[*v1beta2.PodClusterTemplate, v1beta2.PodClusterSpec]{
	GroupKind: groupKind("PodClusterTemplate"), Template: true,
	Spec:        func(t *v1beta2.PodClusterTemplate) *v1beta2.PodClusterSpec { return &t.Spec.Template.Spec },
	DefaultSpec: DefaultPodClusterSpec, ValidateSpec: ValidatePodClusterSpec,
}
