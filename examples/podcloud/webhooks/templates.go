package webhooks

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
)

// TopologyDryRunAnnotation marks the objects Cluster API's topology controller sends in server-side-apply
// dry-runs, to compute whether a ClusterClass change needs a new template.
const TopologyDryRunAnnotation = "topology.cluster.x-k8s.io/dry-run"

// templateImmutable is the detail of the errors about a changed template spec.
const templateImmutable = immutable + ": create a new template and point its users at it"

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

// ValidateUpdate rejects any change of spec, except in the server-side-apply dry-runs of Cluster API's
// topology controller (see IsTopologyDryRun), whose new spec is only checked as in ValidateCreate.
func (PodMachineTemplate) ValidateUpdate(ctx context.Context, oldT, newT *v1beta2.PodMachineTemplate) (admission.Warnings, error) {
	if IsTopologyDryRun(ctx, newT) {
		return nil, invalid("PodMachineTemplate", newT.Name, ValidatePodMachineTemplateSpec(templateSpecPath(), newT.Spec.Template.Spec))
	}
	var errs field.ErrorList
	oldR, newR := oldT.Spec.Template, newT.Spec.Template
	if !equality.Semantic.DeepEqual(oldR.ObjectMeta, newR.ObjectMeta) {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "template", "metadata"), templateImmutable))
	}
	if !equality.Semantic.DeepEqual(oldR.Spec, newR.Spec) {
		errs = append(errs, field.Forbidden(templateSpecPath(), templateImmutable))
	}
	if len(errs) == 0 && !equality.Semantic.DeepEqual(oldT.Spec, newT.Spec) { // a field added to the spec later
		errs = append(errs, field.Forbidden(field.NewPath("spec"), templateImmutable))
	}
	return nil, invalid("PodMachineTemplate", newT.Name, errs)
}

// ValidateDelete accepts every delete.
func (PodMachineTemplate) ValidateDelete(context.Context, *v1beta2.PodMachineTemplate) (admission.Warnings, error) {
	return nil, nil
}

// IsTopologyDryRun reports whether the admission request in ctx is a dry-run and obj carries
// TopologyDryRunAnnotation: Cluster API's topology controller then dry-runs a server-side apply of a changed
// template to see whether it must create a new one, and rejecting it would break ClusterClass rollouts. A
// context without an admission request is not a dry-run.
func IsTopologyDryRun(ctx context.Context, obj metav1.Object) bool {
	req, err := admission.RequestFromContext(ctx)
	if err != nil || req.DryRun == nil || !*req.DryRun {
		return false
	}
	_, ok := obj.GetAnnotations()[TopologyDryRunAnnotation]
	return ok
}

// templateSpecPath is the path of the PodMachineSpec in a PodMachineTemplate.
func templateSpecPath() *field.Path { return field.NewPath("spec", "template", "spec") }
