package webhooks

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/webhook"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// DefaultMemMachineSpec fills the unset image and flavor of spec with v1beta2.DefaultImage and
// v1beta2.DefaultFlavor. It never overwrites a value that is set.
func DefaultMemMachineSpec(spec *v1beta2.MemMachineSpec) {
	defaultImageAndFlavor(&spec.Image, &spec.Flavor)
}

// defaultImageAndFlavor fills an unset image and flavor of a machine or a machine pool.
func defaultImageAndFlavor(image *string, flavor *v1beta2.Flavor) {
	if *image == "" {
		*image = v1beta2.DefaultImage
	}
	if *flavor == "" {
		*flavor = v1beta2.DefaultFlavor
	}
}

// ValidateMemMachineSpec checks spec, found at path: an image, a known flavor, and a provider ID, when set,
// of the form "memcloud://<instance ID>".
func ValidateMemMachineSpec(spec *v1beta2.MemMachineSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Image == "" {
		errs = append(errs, field.Required(path.Child("image"), "every machine needs a boot image"))
	}
	if !slices.Contains(v1beta2.Flavors, spec.Flavor) {
		errs = append(errs, field.NotSupported(path.Child("flavor"), spec.Flavor, v1beta2.Flavors))
	}
	if spec.ProviderID != "" {
		if _, err := v1beta2.InstanceIDFromProviderID(spec.ProviderID); err != nil {
			errs = append(errs, field.Invalid(path.Child("providerID"), spec.ProviderID,
				`must be "`+v1beta2.ProviderIDPrefix+`" followed by the instance ID`))
		}
	}
	return errs
}

// ValidateMemMachineSpecUpdate checks that an update of a MemMachine's spec, found at path, changes nothing
// but what may be set once: providerID and failureDomain may go from empty to a value, never change after.
func ValidateMemMachineSpecUpdate(oldSpec, newSpec *v1beta2.MemMachineSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	setOnce := func(name, oldV, newV string) {
		if oldV != "" && oldV != newV {
			errs = append(errs, field.Forbidden(path.Child(name), immutable+" once set"))
		}
	}
	setOnce("providerID", oldSpec.ProviderID, newSpec.ProviderID)
	setOnce("failureDomain", oldSpec.FailureDomain, newSpec.FailureDomain)
	if oldSpec.Image != newSpec.Image {
		errs = append(errs, field.Forbidden(path.Child("image"), immutable))
	}
	if oldSpec.Flavor != newSpec.Flavor {
		errs = append(errs, field.Forbidden(path.Child("flavor"), immutable))
	}
	return errs
}

// MemMachine is the defaulting and validating admission webhook of MemMachine: DefaultMemMachineSpec,
// ValidateMemMachineSpec, and ValidateMemMachineSpecUpdate on a change.
var MemMachine = webhook.Webhook[*v1beta2.MemMachine, v1beta2.MemMachineSpec]{
	GroupKind: groupKind("MemMachine"), Spec: func(m *v1beta2.MemMachine) *v1beta2.MemMachineSpec { return &m.Spec },
	DefaultSpec: DefaultMemMachineSpec, ValidateSpec: ValidateMemMachineSpec, ValidateSpecUpdate: ValidateMemMachineSpecUpdate,
}
