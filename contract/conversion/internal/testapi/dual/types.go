// Package dual is the test provider's FooMachine in one API version that serves both the v1beta1 and the v1beta2
// contract. Its CRD's labels cluster.x-k8s.io/v1beta1 and cluster.x-k8s.io/v1beta2 both name it, and its status has
// status.ready and status.initialization.provisioned, written together.
// +kubebuilder:object:generate=true
package dual

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/conversion"
)

// FooMachine is an InfraMachine on both contracts.
// +kubebuilder:object:root=true
type FooMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooMachineSpec   `json:"spec,omitempty"`
	Status FooMachineStatus `json:"status,omitempty"`
}

// FooMachineSpec is the spec of a FooMachine.
type FooMachineSpec struct {
	// providerID is the machine's ID for Cluster API.
	// +optional
	ProviderID string `json:"providerID,omitempty"`
}

// FooMachineStatus is the status of a FooMachine.
type FooMachineStatus struct {
	// ready is the v1beta1 contract's provisioned flag.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// initialization holds the v1beta2 contract's provisioned flag.
	// +optional
	Initialization contract.InfraMachineInitialization `json:"initialization,omitempty,omitzero"`

	// conditions are the machine's conditions.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// IsProvisioned reports whether status.ready or status.initialization.provisioned is true.
func (m *FooMachine) IsProvisioned() bool {
	return conversion.IsDualProvisioned(m.Status.Ready, &m.Status.Initialization)
}

// SetProvisioned sets status.ready and status.initialization.provisioned.
func (m *FooMachine) SetProvisioned(v bool) {
	conversion.SetDualProvisioned(&m.Status.Ready, &m.Status.Initialization, v)
}
