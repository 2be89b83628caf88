package lint_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

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

// TestMemClusterHasTheContractShape is the unit test of the provider's API package that CheckType's doc shows.
func TestMemClusterHasTheContractShape(t *testing.T) {
	// snippet:start unit-test
	require.Empty(t, lint.CheckType(&MemCluster{}, lint.KindInfraCluster, contract.V1Beta2))
	// snippet:end unit-test
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

// A CRD whose label declares contract v1beta2 while its status is still in the v1beta1 shape.
const halfMigratedCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: memmachines.infrastructure.example.io
  labels:
    cluster.x-k8s.io/v1beta2: v1alpha1
spec:
  group: infrastructure.example.io
  names: {kind: MemMachine, listKind: MemMachineList, plural: memmachines, singular: memmachine}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              providerID: {type: string}
          status:
            type: object
            properties:
              ready: {type: boolean}
`

func ExampleCheckCRD() {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(halfMigratedCRD), crd); err != nil {
		panic(err)
	}
	for _, v := range lint.CheckCRD(crd) {
		fmt.Printf("%s: %s\n", v.Rule, v.Path)
	}
	// Output:
	// crd.contract-shape: spec.versions[v1alpha1].schema.openAPIV3Schema.properties.status
}

// A tool that returns errors turns violations into one with Err: it wraps ErrViolations, and errors.As gets the
// list back.
func ExampleViolations_Err() {
	err := lint.CheckType(&OldCluster{}, lint.KindInfraCluster, contract.V1Beta2).Err()
	fmt.Println(errors.Is(err, lint.ErrViolations))
	var ve *lint.ViolationsError
	if errors.As(err, &ve) {
		fmt.Println(ve.Violations.Rules())
	}
	// Output:
	// true
	// [infracluster.failureDomains infracluster.provisioned]
}
