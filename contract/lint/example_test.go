package lint_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
)

// MemCluster is a provider's InfraCluster for contract v1beta2, built from capkit's embeddable types.
type MemCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MemClusterSpec   `json:"spec,omitempty"`
	Status            MemClusterStatus `json:"status,omitempty"`
}

// MemClusterSpec is the spec of MemCluster.
type MemClusterSpec struct {
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
}

// MemClusterStatus is the status of MemCluster.
type MemClusterStatus struct {
	Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`
	FailureDomains []contract.FailureDomain            `json:"failureDomains,omitempty"`
	Conditions     []metav1.Condition                  `json:"conditions,omitempty"`
}

// OldCluster still has the v1beta1 status shape.
type OldCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MemClusterSpec `json:"spec,omitempty"`
	Status            struct {
		Ready          bool                         `json:"ready"`
		FailureDomains map[string]map[string]string `json:"failureDomains,omitempty"`
	} `json:"status,omitempty"`
}

// CheckType belongs in a unit test of the provider's API package.
func ExampleCheckType() {
	fmt.Println(len(lint.CheckType(&MemCluster{}, lint.KindInfraCluster, contract.V1Beta2)))

	for _, v := range lint.CheckType(&OldCluster{}, lint.KindInfraCluster, contract.V1Beta2).Sorted() {
		fmt.Println(v.Rule, "|", v.Path)
	}
	// Output:
	// 0
	// infracluster.failureDomains | status.failureDomains
	// infracluster.provisioned | status.initialization.provisioned
}

// Live objects are checked against the contract version their CRD declares.
func ExampleCheckInfraCluster() {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infrastructure.example.com/v1beta2", "kind": "MemCluster",
		"metadata": map[string]any{"name": "demo"},
		"status":   map[string]any{"ready": true, "initialization": map[string]any{"provisioned": true}},
	}}
	for _, v := range lint.CheckInfraCluster(u, contract.V1Beta2) {
		fmt.Println(v)
	}
	// Output:
	// MemCluster/demo: infracluster.controlPlaneEndpoint: spec.controlPlaneEndpoint: status.initialization.provisioned is true but spec.controlPlaneEndpoint has no host and port: set the endpoint before or with provisioned
}
