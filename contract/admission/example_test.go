package admission_test

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/admission"
)

// A provider declares the webhook of its machine template in one value: the templated spec is defaulted and
// checked as a machine's, and the template cannot change after creation.
func ExampleWebhook() {
	// snippet:start declare
	machineTemplate := admission.Webhook[*MachineTemplate, MachineSpec]{
		GroupKind:    schema.GroupKind{Group: "infrastructure.example.com", Kind: "MyMachineTemplate"},
		Template:     true,
		Spec:         func(t *MachineTemplate) *MachineSpec { return &t.Spec.Template.Spec },
		DefaultSpec:  defaultMachineSpec,
		ValidateSpec: validateMachineSpec,
	}
	// snippet:end declare
	ctx := context.Background()
	oldT := &MachineTemplate{}
	oldT.Name = "workers"
	_ = machineTemplate.Default(ctx, oldT)
	fmt.Println("defaulted:", oldT.Spec.Template.Spec.Flavor)

	newT := oldT.DeepCopyObject().(*MachineTemplate)
	newT.Spec.Template.Spec.Flavor = "huge"
	_, err := machineTemplate.ValidateUpdate(ctx, oldT, newT)
	fmt.Println(err)
	// Output:
	// defaulted: small
	// MyMachineTemplate.infrastructure.example.com "workers" is invalid: [spec.template.spec.flavor: Forbidden: field is immutable: create a new template and point its users at it, spec.template.spec.flavor: Unsupported value: "huge": supported values: "small", "large"]
}

// A provider with a hand-written template webhook calls ValidateImmutable from its ValidateUpdate: it refuses
// a changed spec and names the field; the topology controller's dry-runs pass.
func ExampleValidateImmutable() {
	oldSpec := map[string]any{"template": map[string]any{"spec": map[string]any{"flavor": "small"}}}
	newSpec := map[string]any{"template": map[string]any{"spec": map[string]any{"flavor": "large"}}}
	errs := admission.ValidateImmutable(context.Background(), &metav1.ObjectMeta{Name: "workers"}, field.NewPath("spec"), oldSpec, newSpec)
	fmt.Println(errs.ToAggregate())
	// Output:
	// spec.template.spec.flavor: Forbidden: field is immutable: create a new template and point its users at it
}

// An InfraMachine whose flavor and tags change in place lets them change, and nothing else: its webhook's
// ValidateSpecUpdate calls ValidateImmutableExcept with the fields its in-place update extension declares.
func ExampleValidateImmutableExcept() {
	mutable := [][]string{{"flavor"}, {"tags"}}
	oldSpec := map[string]any{"image": "ubuntu-24.04", "flavor": "small", "tags": map[string]any{"team": "a"}}
	newSpec := map[string]any{"image": "ubuntu-26.04", "flavor": "large", "tags": map[string]any{"team": "b"}}
	errs := admission.ValidateImmutableExcept(field.NewPath("spec"), oldSpec, newSpec, mutable)
	fmt.Println(errs.ToAggregate())
	// Output:
	// spec.image: Forbidden: field is immutable
}

// MachineTemplateWebhook is a provider's hand-written webhook of MachineTemplate.
type MachineTemplateWebhook struct{}

var groupKind = schema.GroupKind{Group: "infrastructure.example.com", Kind: "MyMachineTemplate"}

// snippet:start validate-update

// ValidateUpdate refuses any change of the template's spec.
func (MachineTemplateWebhook) ValidateUpdate(ctx context.Context, oldT, newT *MachineTemplate) (cradmission.Warnings, error) {
	errs := admission.ValidateImmutable(ctx, newT, field.NewPath("spec"), oldT.Spec, newT.Spec)
	if len(errs) == 0 {
		return nil, nil
	}
	return nil, apierrors.NewInvalid(groupKind, newT.Name, errs)
}

// snippet:end validate-update

// A hand-written template webhook calls ValidateImmutable from its ValidateUpdate.
func ExampleValidateImmutable_handWritten() {
	oldT := &MachineTemplate{}
	oldT.Name = "workers"
	oldT.Spec.Template.Spec.Flavor = "small"
	newT := oldT.DeepCopyObject().(*MachineTemplate)
	_, err := MachineTemplateWebhook{}.ValidateUpdate(context.Background(), oldT, newT)
	fmt.Println(err)
	newT.Spec.Template.Spec.Flavor = "large"
	_, err = MachineTemplateWebhook{}.ValidateUpdate(context.Background(), oldT, newT)
	fmt.Println(err)
	// Output:
	// <nil>
	// MyMachineTemplate.infrastructure.example.com "workers" is invalid: spec.template.spec.flavor: Forbidden: field is immutable: create a new template and point its users at it
}
