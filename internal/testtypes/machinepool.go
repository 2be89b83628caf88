package testtypes

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/contract"
)

// FooMachinePool is a v1beta2-contract InfraMachinePool; it implements conditions.Setter and the contract
// accessors (generated: zz_generated.accessors.go), and sets status.ready with the provisioned flag as Cluster
// API v1.14 reads it.
//
// +kubebuilder:object:root=true
type FooMachinePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooMachinePoolSpec   `json:"spec,omitempty"`
	Status            FooMachinePoolStatus `json:"status,omitempty"`
}

// FooMachinePoolSpec is the spec of FooMachinePool.
type FooMachinePoolSpec struct {
	ProviderIDList []string `json:"providerIDList,omitempty"`
	Size           string   `json:"size,omitempty"`
}

// FooMachinePoolStatus is the status of FooMachinePool.
type FooMachinePoolStatus struct {
	Initialization *contract.InfraMachinePoolInitialization `json:"initialization,omitempty"`
	Ready          bool                                     `json:"ready,omitempty"`
	Replicas       int32                                    `json:"replicas,omitempty"`
	Conditions     []metav1.Condition                       `json:"conditions,omitempty"`
	Resources      map[string]string                        `json:"resources,omitempty"`
}

// FooMachinePoolList is a list of FooMachinePool.
type FooMachinePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FooMachinePool `json:"items"`
}

// SetProvisioned implements contract.ProvisionedAccessor, setting status.ready too.
func (p *FooMachinePool) SetProvisioned(v bool) {
	if p.Status.Initialization == nil {
		p.Status.Initialization = &contract.InfraMachinePoolInitialization{}
	}
	p.Status.Initialization.SetProvisioned(v)
	p.Status.Ready = v
}

// DeepCopyObject implements runtime.Object.
func (p *FooMachinePool) DeepCopyObject() runtime.Object { return deepCopy(p) }

// DeepCopyObject implements runtime.Object.
func (l *FooMachinePoolList) DeepCopyObject() runtime.Object { return deepCopy(l) }
