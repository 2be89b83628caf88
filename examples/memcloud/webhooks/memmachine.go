package webhooks

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
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

// validateImageAndFlavor checks the image and flavor, found at path's image and flavor, of a machine or a
// machine pool: an image, and a flavor of v1beta2.Flavors.
func validateImageAndFlavor(image string, flavor v1beta2.Flavor, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if image == "" {
		errs = append(errs, field.Required(path.Child("image"), "every machine needs a boot image"))
	}
	if !slices.Contains(v1beta2.Flavors, flavor) {
		errs = append(errs, field.NotSupported(path.Child("flavor"), flavor, v1beta2.Flavors))
	}
	return errs
}

// validateProviderID checks a provider ID, found at path: "memcloud://<instance ID>".
func validateProviderID(id string, path *field.Path) field.ErrorList {
	if _, err := v1beta2.InstanceIDFromProviderID(id); err != nil {
		return field.ErrorList{field.Invalid(path, id, `must be "`+v1beta2.ProviderIDPrefix+`" followed by the instance ID`)}
	}
	return nil
}

// ValidateMemMachineSpec checks spec, found at path: an image, a known flavor, a provider ID, when set, of the
// form "memcloud://<instance ID>", user tags (validateTags) and IPAM pools (validatePools).
func ValidateMemMachineSpec(spec *v1beta2.MemMachineSpec, path *field.Path) field.ErrorList {
	errs := validateImageAndFlavor(spec.Image, spec.Flavor, path)
	if spec.ProviderID != "" {
		errs = append(errs, validateProviderID(spec.ProviderID, path.Child("providerID"))...)
	}
	errs = append(errs, validateTags(spec.Tags, path.Child("tags"))...)
	return append(errs, validatePools(spec.AddressesFromPools, path.Child("addressesFromPools"))...)
}

// validatePools checks the IPAM pools found at path as the CRD schema does: at most
// v1beta2.MaxAddressesFromPools, none listed twice, each valid (ipam.PoolRef.Validate).
func validatePools(pools []v1beta2.IPPoolRef, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(pools) > v1beta2.MaxAddressesFromPools {
		errs = append(errs, field.TooMany(path, len(pools), v1beta2.MaxAddressesFromPools))
	}
	for i, p := range pools {
		pp := path.Index(i)
		if slices.Index(pools, p) != i {
			errs = append(errs, field.Duplicate(pp, p))
		}
		errs = append(errs, p.Validate(pp)...)
	}
	return errs
}

// validateTags checks the user tags found at path, as the CRD schema does (at most v1beta2.MaxTags, keys
// qualified names of at most v1beta2.MaxTagKeyLength characters, values of at most v1beta2.MaxTagValueLength),
// and refuses the keys memcloud and capkit reserve for their own tags (v1beta2.IsReservedTagKey), naming each.
func validateTags(tags map[string]string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(tags) > v1beta2.MaxTags {
		errs = append(errs, field.TooMany(path, len(tags), v1beta2.MaxTags))
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		p := path.Key(k)
		switch {
		case v1beta2.IsReservedTagKey(k):
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("tag key %q is reserved: keys under %s are memcloud's and capkit's own tags",
				k, v1beta2.ReservedTagDomain)))
		case len(validation.IsQualifiedName(k)) > 0:
			errs = append(errs, field.Invalid(p, k, `tag key must be a qualified name: an optional lowercase DNS subdomain and "/", `+
				"then alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric"))
		case len(k) > v1beta2.MaxTagKeyLength:
			errs = append(errs, field.TooLong(p, k, v1beta2.MaxTagKeyLength))
		}
		if len(tags[k]) > v1beta2.MaxTagValueLength {
			errs = append(errs, field.TooLong(p, "", v1beta2.MaxTagValueLength))
		}
	}
	return errs
}

// ValidateMemMachineSpecUpdate checks that an update of a MemMachine's spec, found at path, changes nothing
// but the fields memcloud changes on the running instance (v1beta2.InPlaceFields: flavor, tags) and what may
// be set once: providerID and failureDomain may go from empty to a value, never change after. Any other change
// is refused, naming the field (admission.ValidateImmutableExcept).
func ValidateMemMachineSpecUpdate(oldSpec, newSpec *v1beta2.MemMachineSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	setOnce := func(name, oldV, newV string) {
		if oldV != "" && oldV != newV {
			errs = append(errs, field.Forbidden(path.Child(name), immutable+" once set"))
		}
	}
	setOnce("providerID", oldSpec.ProviderID, newSpec.ProviderID)
	setOnce("failureDomain", oldSpec.FailureDomain, newSpec.FailureDomain)
	// snippet:start immutable-except
	mutable := append([][]string{{"providerID"}, {"failureDomain"}}, v1beta2.InPlaceFields...)
	return append(errs, admission.ValidateImmutableExcept(path, oldSpec, newSpec, mutable)...)
	// snippet:end immutable-except
}

// MemMachine is the defaulting and validating admission webhook of MemMachine: DefaultMemMachineSpec,
// ValidateMemMachineSpec, and ValidateMemMachineSpecUpdate on a change. MemMachineTemplate's stays fully
// immutable: Cluster API replaces templates, it does not edit them.
var MemMachine = admission.Webhook[*v1beta2.MemMachine, v1beta2.MemMachineSpec]{
	GroupKind: groupKind("MemMachine"), Spec: func(m *v1beta2.MemMachine) *v1beta2.MemMachineSpec { return &m.Spec },
	DefaultSpec: DefaultMemMachineSpec, ValidateSpec: ValidateMemMachineSpec, ValidateSpecUpdate: ValidateMemMachineSpecUpdate,
	KeepStatus: true,
}
