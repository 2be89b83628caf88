package webhooks

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/templates"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// MemClusterTemplate is the defaulting and validating admission webhook of MemClusterTemplate: the template's
// spec is defaulted and validated as a MemCluster's spec, and cannot change after creation.
type MemClusterTemplate struct{}

var (
	_ admission.Defaulter[*v1beta2.MemClusterTemplate] = MemClusterTemplate{}
	_ admission.Validator[*v1beta2.MemClusterTemplate] = MemClusterTemplate{}
)

// Default fills the unset fields of spec.template.spec; see DefaultMemClusterSpec.
func (MemClusterTemplate) Default(_ context.Context, t *v1beta2.MemClusterTemplate) error {
	DefaultMemClusterSpec(&t.Spec.Template.Spec)
	return nil
}

// ValidateCreate checks spec.template.spec as ValidateMemClusterSpec checks a MemCluster's spec.
func (MemClusterTemplate) ValidateCreate(_ context.Context, t *v1beta2.MemClusterTemplate) (admission.Warnings, error) {
	return nil, invalid("MemClusterTemplate", t.Name, ValidateMemClusterSpec(&t.Spec.Template.Spec, templateSpecPath()))
}

// ValidateUpdate rejects any change of spec.template.spec (its metadata may change), except in the
// server-side-apply dry-runs of Cluster API's topology controller (templates.ValidateImmutable); the new spec
// is checked as in ValidateCreate.
func (MemClusterTemplate) ValidateUpdate(ctx context.Context, oldT, newT *v1beta2.MemClusterTemplate) (admission.Warnings, error) {
	errs := templates.ValidateImmutable(ctx, newT, templateSpecPath(), oldT.Spec.Template.Spec, newT.Spec.Template.Spec)
	if newT.DeletionTimestamp.IsZero() {
		errs = append(errs, ValidateMemClusterSpec(&newT.Spec.Template.Spec, templateSpecPath())...)
	}
	return nil, invalid("MemClusterTemplate", newT.Name, errs)
}

// ValidateDelete accepts every delete.
func (MemClusterTemplate) ValidateDelete(context.Context, *v1beta2.MemClusterTemplate) (admission.Warnings, error) {
	return nil, nil
}

// MemMachineTemplate is the defaulting and validating admission webhook of MemMachineTemplate: the template's
// spec is defaulted and validated as a MemMachine's spec, must not set providerID, and cannot change after
// creation.
type MemMachineTemplate struct{}

var (
	_ admission.Defaulter[*v1beta2.MemMachineTemplate] = MemMachineTemplate{}
	_ admission.Validator[*v1beta2.MemMachineTemplate] = MemMachineTemplate{}
)

// Default fills the unset fields of spec.template.spec; see DefaultMemMachineSpec.
func (MemMachineTemplate) Default(_ context.Context, t *v1beta2.MemMachineTemplate) error {
	DefaultMemMachineSpec(&t.Spec.Template.Spec)
	return nil
}

// ValidateCreate checks spec.template.spec as ValidateMemMachineSpec checks a MemMachine's spec, and rejects a
// providerID: every machine made from the template gets its own instance.
func (MemMachineTemplate) ValidateCreate(_ context.Context, t *v1beta2.MemMachineTemplate) (admission.Warnings, error) {
	return nil, invalid("MemMachineTemplate", t.Name, ValidateMemMachineTemplateSpec(&t.Spec.Template.Spec, templateSpecPath()))
}

// ValidateUpdate rejects any change of spec.template.spec (its metadata may change), except in the
// server-side-apply dry-runs of Cluster API's topology controller (templates.ValidateImmutable); the new spec
// is checked as in ValidateCreate.
func (MemMachineTemplate) ValidateUpdate(ctx context.Context, oldT, newT *v1beta2.MemMachineTemplate) (admission.Warnings, error) {
	errs := templates.ValidateImmutable(ctx, newT, templateSpecPath(), oldT.Spec.Template.Spec, newT.Spec.Template.Spec)
	if newT.DeletionTimestamp.IsZero() {
		errs = append(errs, ValidateMemMachineTemplateSpec(&newT.Spec.Template.Spec, templateSpecPath())...)
	}
	return nil, invalid("MemMachineTemplate", newT.Name, errs)
}

// ValidateDelete accepts every delete.
func (MemMachineTemplate) ValidateDelete(context.Context, *v1beta2.MemMachineTemplate) (admission.Warnings, error) {
	return nil, nil
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

func templateSpecPath() *field.Path { return field.NewPath("spec", "template", "spec") }
