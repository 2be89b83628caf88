package webhooks

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// ValidateMemMachinePoolSpec checks spec, found at path: an image, a known flavor, and provider IDs of the form
// "memcloud://<instance ID>".
func ValidateMemMachinePoolSpec(spec *v1beta2.MemMachinePoolSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Image == "" {
		errs = append(errs, field.Required(path.Child("image"), "every instance needs a boot image"))
	}
	if !slices.Contains(v1beta2.Flavors, spec.Flavor) {
		errs = append(errs, field.NotSupported(path.Child("flavor"), spec.Flavor, v1beta2.Flavors))
	}
	for i, id := range spec.ProviderIDList {
		if _, err := v1beta2.InstanceIDFromProviderID(id); err != nil {
			errs = append(errs, field.Invalid(path.Child("providerIDList").Index(i), id,
				`must be "`+v1beta2.ProviderIDPrefix+`" followed by the instance ID`))
		}
	}
	return errs
}

// MemMachinePool is the defaulting and validating admission webhook of MemMachinePool: the image and flavor of
// the group's instances cannot change after creation (memcloud has no rolling replacement of a group).
type MemMachinePool struct{}

var (
	_ admission.Defaulter[*v1beta2.MemMachinePool] = MemMachinePool{}
	_ admission.Validator[*v1beta2.MemMachinePool] = MemMachinePool{}
)

// Default fills the unset image and flavor, as for a MemMachine.
func (MemMachinePool) Default(_ context.Context, p *v1beta2.MemMachinePool) error {
	defaultImageAndFlavor(&p.Spec.Image, &p.Spec.Flavor)
	return nil
}

// ValidateCreate checks a new MemMachinePool; see ValidateMemMachinePoolSpec.
func (MemMachinePool) ValidateCreate(_ context.Context, p *v1beta2.MemMachinePool) (admission.Warnings, error) {
	return nil, invalid("MemMachinePool", p.Name, ValidateMemMachinePoolSpec(&p.Spec, field.NewPath("spec")))
}

// ValidateUpdate checks a changed MemMachinePool: image and flavor are immutable and, unless it is being
// deleted, the new spec is valid.
func (MemMachinePool) ValidateUpdate(_ context.Context, oldP, newP *v1beta2.MemMachinePool) (admission.Warnings, error) {
	path := field.NewPath("spec")
	var errs field.ErrorList
	if oldP.Spec.Image != newP.Spec.Image {
		errs = append(errs, field.Forbidden(path.Child("image"), immutable))
	}
	if oldP.Spec.Flavor != newP.Spec.Flavor {
		errs = append(errs, field.Forbidden(path.Child("flavor"), immutable))
	}
	if newP.DeletionTimestamp.IsZero() {
		errs = append(errs, ValidateMemMachinePoolSpec(&newP.Spec, path)...)
	}
	return nil, invalid("MemMachinePool", newP.Name, errs)
}

// ValidateDelete accepts every delete.
func (MemMachinePool) ValidateDelete(context.Context, *v1beta2.MemMachinePool) (admission.Warnings, error) {
	return nil, nil
}
