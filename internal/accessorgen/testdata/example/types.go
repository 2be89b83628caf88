// Package example is the package of accessorgen's runnable example.
package example

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// WidgetMachineSpec is the spec of WidgetMachine.
type WidgetMachineSpec struct {
	ProviderID string `json:"providerID,omitempty"`
}

// WidgetMachine is an InfraMachine.
// +kubebuilder:object:root=true
type WidgetMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetMachineSpec `json:"spec,omitempty"`
}
