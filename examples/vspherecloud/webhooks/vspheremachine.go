package webhooks

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capkit/capkit/contract/admission"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/services"
)

// ValidateVSphereMachineName checks the name of a new VSphereMachine, found at path: it becomes its VM's name, so it
// has at most services.MaxVMNameLength (80) characters, vSphere's limit. (The API server has checked that it is a
// DNS subdomain.) Without this check the machine would be created and its clone refused.
func ValidateVSphereMachineName(name string, path *field.Path) field.ErrorList {
	if len(name) > services.MaxVMNameLength {
		return field.ErrorList{field.Invalid(path, name, fmt.Sprintf(
			"must have at most %d characters, not %d: it becomes the VM's name, and vSphere allows no more", services.MaxVMNameLength, len(name)))}
	}
	return nil
}

// ValidateVSphereMachineSpec checks spec, found at path (spec, or spec.template.spec of a VSphereMachineTemplate),
// for what the CRD schema cannot: providerID, when set, is "vsphere://" followed by a BIOS UUID
// (services.IDFromProviderID).
func ValidateVSphereMachineSpec(spec *v1beta2.VSphereMachineSpec, path *field.Path) field.ErrorList {
	if spec.ProviderID == "" {
		return nil
	}
	if _, err := services.IDFromProviderID(spec.ProviderID); err != nil {
		return field.ErrorList{field.Invalid(path.Child("providerID"), spec.ProviderID,
			`must be "`+services.ProviderIDPrefix+`" followed by the VM's BIOS UUID`)}
	}
	return nil
}

// ValidateVSphereMachineSpecUpdate checks that an update of a VSphereMachine's spec, found at path, changes nothing
// but providerID, and that only from empty to a value (admission.ValidateSetOnce): vspherecloud changes nothing of a
// VM after its clone. Every error names the field, the new value and the old one; a field added to the spec later is
// immutable too, named without its values (admission.ValidateImmutableExcept), until it gets its own line here.
func ValidateVSphereMachineSpecUpdate(oldSpec, newSpec *v1beta2.VSphereMachineSpec, path *field.Path) field.ErrorList {
	errs := admission.ValidateSetOnce(path.Child("providerID"), oldSpec.ProviderID, newSpec.ProviderID)
	for _, f := range []struct {
		name     string
		old, new string
	}{
		{"template", oldSpec.Template, newSpec.Template},
		{"folder", oldSpec.Folder, newSpec.Folder},
		{"resourcePool", oldSpec.ResourcePool, newSpec.ResourcePool},
		{"datastore", oldSpec.Datastore, newSpec.Datastore},
		{"network", oldSpec.Network, newSpec.Network},
	} {
		errs = append(errs, admission.ValidateUnchanged(path.Child(f.name), f.old, f.new)...)
	}
	errs = append(errs, admission.ValidateUnchanged(path.Child("numCPUs"), oldSpec.NumCPUs, newSpec.NumCPUs)...)
	errs = append(errs, admission.ValidateUnchanged(path.Child("memoryMiB"), oldSpec.MemoryMiB, newSpec.MemoryMiB)...)
	errs = append(errs, admission.ValidateUnchanged(path.Child("diskGiB"), oldSpec.DiskGiB, newSpec.DiskGiB)...)
	return append(errs, admission.ValidateImmutableExcept(path, oldSpec, newSpec, checkedMachineFields)...)
}

// checkedMachineFields are the fields of a VSphereMachine's spec that ValidateVSphereMachineSpecUpdate checks one
// by one; ValidateImmutableExcept covers the others.
var checkedMachineFields = [][]string{
	{"providerID"}, {"template"}, {"folder"}, {"resourcePool"}, {"datastore"}, {"network"}, {"numCPUs"}, {"memoryMiB"}, {"diskGiB"},
}

// VSphereMachine is the validating admission webhook of VSphereMachine: ValidateVSphereMachineName on create,
// ValidateVSphereMachineSpec, and ValidateVSphereMachineSpecUpdate on a change.
var VSphereMachine = admission.Webhook[*v1beta2.VSphereMachine, v1beta2.VSphereMachineSpec]{
	GroupKind: groupKind("VSphereMachine"), Spec: func(m *v1beta2.VSphereMachine) *v1beta2.VSphereMachineSpec { return &m.Spec },
	ValidateName: ValidateVSphereMachineName, ValidateSpec: ValidateVSphereMachineSpec, ValidateSpecUpdate: ValidateVSphereMachineSpecUpdate,
}

// ValidateVSphereMachineTemplateSpec checks the spec.template.spec of a VSphereMachineTemplate, found at path, as
// ValidateVSphereMachineSpec checks a VSphereMachine's, and rejects a providerID: every VSphereMachine made from
// the template gets its own VM.
func ValidateVSphereMachineTemplateSpec(spec *v1beta2.VSphereMachineSpec, path *field.Path) field.ErrorList {
	if spec.ProviderID != "" { // reported once, not also as unparsable
		return field.ErrorList{field.Invalid(path.Child("providerID"), spec.ProviderID,
			"must be empty in a template: every VSphereMachine made from it gets its own VM")}
	}
	return ValidateVSphereMachineSpec(spec, path)
}

// VSphereMachineTemplate is the validating admission webhook of VSphereMachineTemplate: spec.template.spec is
// checked by ValidateVSphereMachineTemplateSpec, and the spec cannot change after creation, except in the
// server-side-apply dry-runs of Cluster API's topology controller (admission.Webhook's Template).
var VSphereMachineTemplate = admission.Webhook[*v1beta2.VSphereMachineTemplate, v1beta2.VSphereMachineSpec]{
	GroupKind: groupKind("VSphereMachineTemplate"), Template: true,
	Spec:         func(t *v1beta2.VSphereMachineTemplate) *v1beta2.VSphereMachineSpec { return &t.Spec.Template.Spec },
	ValidateSpec: ValidateVSphereMachineTemplateSpec,
}
