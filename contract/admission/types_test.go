package admission_test

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MachineSpec is the spec of the tests' provider types.
type MachineSpec struct {
	Flavor     string `json:"flavor,omitempty"`
	ProviderID string `json:"providerID,omitempty"`
}

// Machine is a provider's InfraMachine.
type Machine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MachineSpec `json:"spec,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (m *Machine) DeepCopyObject() runtime.Object {
	out := *m
	m.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// MachineTemplate is a provider's InfraMachineTemplate.
type MachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Template struct {
			Spec MachineSpec `json:"spec,omitempty"`
		} `json:"template"`
	} `json:"spec,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (t *MachineTemplate) DeepCopyObject() runtime.Object {
	out := *t
	t.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func defaultMachineSpec(s *MachineSpec) {
	if s.Flavor == "" {
		s.Flavor = "small"
	}
}

func validateMachineSpec(s *MachineSpec, path *field.Path) field.ErrorList {
	if s.Flavor != "small" && s.Flavor != "large" {
		return field.ErrorList{field.NotSupported(path.Child("flavor"), s.Flavor, []string{"small", "large"})}
	}
	return nil
}

func validateMachineSpecUpdate(oldSpec, newSpec *MachineSpec, path *field.Path) field.ErrorList {
	if oldSpec.ProviderID != "" && oldSpec.ProviderID != newSpec.ProviderID {
		return field.ErrorList{field.Forbidden(path.Child("providerID"), "field is immutable once set")}
	}
	return nil
}
