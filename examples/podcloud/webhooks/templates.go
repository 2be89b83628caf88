package webhooks

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/templates"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
)

// ValidatePodMachineTemplateSpec checks the spec.template.spec of a PodMachineTemplate, found at path, as
// ValidatePodMachineSpec checks a PodMachine's, and rejects a providerID: every PodMachine made from the
// template gets its own Pod.
func ValidatePodMachineTemplateSpec(path *field.Path, spec v1beta2.PodMachineSpec) field.ErrorList {
	var errs field.ErrorList
	if spec.ProviderID != "" {
		errs = append(errs, field.Invalid(path.Child("providerID"), spec.ProviderID,
			"must be empty in a template: every PodMachine made from it gets its own Pod"))
		spec.ProviderID = "" // reported once, not also as unparsable
	}
	return append(errs, ValidatePodMachineSpec(path, spec)...)
}

// PodMachineTemplate is the validating admission webhook of PodMachineTemplate.
type PodMachineTemplate struct{}

var _ admission.Validator[*v1beta2.PodMachineTemplate] = PodMachineTemplate{}

// ValidateCreate checks a new PodMachineTemplate; see ValidatePodMachineTemplateSpec.
func (PodMachineTemplate) ValidateCreate(_ context.Context, t *v1beta2.PodMachineTemplate) (admission.Warnings, error) {
	return nil, invalid("PodMachineTemplate", t.Name, ValidatePodMachineTemplateSpec(templateSpecPath(), t.Spec.Template.Spec))
}

// ValidateUpdate rejects any change of spec (templates.ValidateImmutable names each changed field), except in
// the server-side-apply dry-runs of Cluster API's topology controller, whose new spec is checked as in
// ValidateCreate.
func (PodMachineTemplate) ValidateUpdate(ctx context.Context, oldT, newT *v1beta2.PodMachineTemplate) (admission.Warnings, error) {
	errs := templates.ValidateImmutable(ctx, newT, field.NewPath("spec"), oldT.Spec, newT.Spec)
	if newT.DeletionTimestamp.IsZero() {
		errs = append(errs, ValidatePodMachineTemplateSpec(templateSpecPath(), newT.Spec.Template.Spec)...)
	}
	return nil, invalid("PodMachineTemplate", newT.Name, errs)
}

// ValidateDelete accepts every delete.
func (PodMachineTemplate) ValidateDelete(context.Context, *v1beta2.PodMachineTemplate) (admission.Warnings, error) {
	return nil, nil
}

// PodClusterTemplate is the defaulting and validating admission webhook of PodClusterTemplate: the template's
// spec.template.spec is defaulted and checked as a PodCluster's spec, and the spec cannot change after creation.
type PodClusterTemplate struct{}

var (
	_ admission.Defaulter[*v1beta2.PodClusterTemplate] = PodClusterTemplate{}
	_ admission.Validator[*v1beta2.PodClusterTemplate] = PodClusterTemplate{}
)

// Default fills the unset fields of spec.template.spec; see DefaultPodClusterSpec.
func (PodClusterTemplate) Default(_ context.Context, t *v1beta2.PodClusterTemplate) error {
	DefaultPodClusterSpec(&t.Spec.Template.Spec)
	return nil
}

// ValidateCreate checks a new PodClusterTemplate: spec.template.spec as ValidatePodClusterSpec checks a
// PodCluster's spec.
func (PodClusterTemplate) ValidateCreate(_ context.Context, t *v1beta2.PodClusterTemplate) (admission.Warnings, error) {
	return nil, invalid("PodClusterTemplate", t.Name, ValidatePodClusterSpec(templateSpecPath(), t.Spec.Template.Spec))
}

// ValidateUpdate rejects any change of spec (templates.ValidateImmutable names each changed field), except in
// the server-side-apply dry-runs of Cluster API's topology controller, whose new spec is checked as in
// ValidateCreate.
func (PodClusterTemplate) ValidateUpdate(ctx context.Context, oldT, newT *v1beta2.PodClusterTemplate) (admission.Warnings, error) {
	errs := templates.ValidateImmutable(ctx, newT, field.NewPath("spec"), oldT.Spec, newT.Spec)
	if newT.DeletionTimestamp.IsZero() {
		errs = append(errs, ValidatePodClusterSpec(templateSpecPath(), newT.Spec.Template.Spec)...)
	}
	return nil, invalid("PodClusterTemplate", newT.Name, errs)
}

// ValidateDelete accepts every delete.
func (PodClusterTemplate) ValidateDelete(context.Context, *v1beta2.PodClusterTemplate) (admission.Warnings, error) {
	return nil, nil
}

// templateSpecPath is the path of the templated spec in a PodClusterTemplate or a PodMachineTemplate.
func templateSpecPath() *field.Path { return field.NewPath("spec", "template", "spec") }
