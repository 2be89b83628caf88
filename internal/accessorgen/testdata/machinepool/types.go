// Package machinepool is an InfraMachinePool with hand-written SetProvisioned and GetConditions.
package machinepool

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
)

// FooMachinePoolSpec is the spec.
type FooMachinePoolSpec struct {
	ProviderIDList []string `json:"providerIDList,omitempty"`
}

// FooMachinePoolStatus is the status.
type FooMachinePoolStatus struct {
	Initialization contract.InfraMachinePoolInitialization `json:"initialization,omitempty,omitzero"`
	Ready          bool                                    `json:"ready,omitempty"`
	Replicas       int32                                   `json:"replicas,omitempty"`
	Conditions     []metav1.Condition                      `json:"conditions,omitempty"`
	Resources      map[string]string                       `json:"resources,omitempty"`
}

// +kubebuilder:object:root=true

// FooMachinePool is the InfraMachinePool; its root marker is in the block above its doc comment.
type FooMachinePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooMachinePoolSpec   `json:"spec,omitempty"`
	Status            FooMachinePoolStatus `json:"status,omitempty"`
}

// SetProvisioned sets status.initialization.provisioned and status.ready.
func (p *FooMachinePool) SetProvisioned(v bool) {
	p.Status.Initialization.SetProvisioned(v)
	p.Status.Ready = v
}
