// Package machine is an InfraMachine with every machine contract field and no hand-written accessor.
package machine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// FooMachineSpec is the spec.
type FooMachineSpec struct {
	ProviderID    string `json:"providerID,omitempty"`
	FailureDomain string `json:"failureDomain,omitempty"`
}

// FooMachineStatus is the status.
type FooMachineStatus struct {
	Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`
	Conditions     []metav1.Condition                  `json:"conditions,omitempty"`
	Addresses      []contract.MachineAddress           `json:"addresses,omitempty"`
	FailureDomain  string                              `json:"failureDomain,omitempty"`
	Resources      map[string]string                   `json:"resources,omitempty"`
	State          string                              `json:"state,omitempty"`
}

// FooMachine is the InfraMachine.
//
// +kubebuilder:object:root=true
type FooMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooMachineSpec   `json:"spec,omitempty"`
	Status            FooMachineStatus `json:"status,omitempty,omitzero"`
}

// FooMachineList is a list of FooMachines.
//
// +kubebuilder:object:root=true
type FooMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FooMachine `json:"items"`
}
