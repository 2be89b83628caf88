// Package cluster is an InfraCluster whose files alias the packages and whose initialization is a pointer.
package cluster

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1"

	capicontract "github.com/capkit/capkit/contract"
)

// FooClusterSpec is the spec.
type FooClusterSpec struct {
	ControlPlaneEndpoint capicontract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
	// FailureDomains in spec are not the contract's status.failureDomains.
	FailureDomains []string `json:"failureDomains,omitempty"`
}

// FooClusterStatus is the status.
type FooClusterStatus struct {
	Initialization *capicontract.InfraClusterInitialization `json:"initialization,omitempty"`
	Conditions     []v1.Condition                           `json:"conditions,omitempty"`
	FailureDomains []capicontract.FailureDomain             `json:"failureDomains,omitempty"`
	Resources      map[string]string                        `json:"resources,omitempty"`
}

// FooCluster is the InfraCluster.
// +kubebuilder:object:root=true
type FooCluster struct {
	v1.TypeMeta   `json:",inline"`
	v1.ObjectMeta `json:"metadata,omitempty"`
	Spec          FooClusterSpec   `json:"spec,omitempty"`
	Status        FooClusterStatus `json:"status,omitempty"`
}

// Region returns the region; its receiver name is the one the generated methods use.
func (fc *FooCluster) Region() string { return fc.Name }
