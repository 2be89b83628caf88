package webhooks

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// ValidateMemMachinePoolSpec checks spec, found at path: an image, a known flavor, and provider IDs of the form
// "memcloud://<instance ID>".
func ValidateMemMachinePoolSpec(spec *v1beta2.MemMachinePoolSpec, path *field.Path) field.ErrorList {
	errs := validateImageAndFlavor(spec.Image, spec.Flavor, path)
	for i, id := range spec.ProviderIDList {
		errs = append(errs, validateProviderID(id, path.Child("providerIDList").Index(i))...)
	}
	return errs
}

// MemMachinePool is the defaulting and validating admission webhook of MemMachinePool: the image and flavor of
// the group's instances cannot change after creation (memcloud has no rolling replacement of a group).
var MemMachinePool = admission.Webhook[*v1beta2.MemMachinePool, v1beta2.MemMachinePoolSpec]{
	GroupKind: groupKind("MemMachinePool"), Spec: func(p *v1beta2.MemMachinePool) *v1beta2.MemMachinePoolSpec { return &p.Spec },
	DefaultSpec:        func(spec *v1beta2.MemMachinePoolSpec) { defaultImageAndFlavor(&spec.Image, &spec.Flavor) },
	ValidateSpec:       ValidateMemMachinePoolSpec,
	ValidateSpecUpdate: ValidateMemMachinePoolSpecUpdate,
}

// ValidateMemMachinePoolSpecUpdate checks a change of a MemMachinePool's spec, found at path: image and flavor
// are immutable.
func ValidateMemMachinePoolSpecUpdate(oldSpec, newSpec *v1beta2.MemMachinePoolSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if oldSpec.Image != newSpec.Image {
		errs = append(errs, field.Forbidden(path.Child("image"), immutable))
	}
	if oldSpec.Flavor != newSpec.Flavor {
		errs = append(errs, field.Forbidden(path.Child("flavor"), immutable))
	}
	return errs
}
