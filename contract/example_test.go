package contract_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
)

func printJSON(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

// Provider code writes the same fields for either contract version; the accessor picks the path.
func ExampleInfraCluster() {
	for _, v := range contract.Versions {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		f := contract.InfraCluster(v)
		_ = f.ControlPlaneEndpoint().Set(u, contract.APIEndpoint{Host: "10.0.0.1", Port: 6443})
		_ = f.Provisioned().Set(u, true)
		printJSON(u.Object)

		provisioned, err := f.Provisioned().Get(u)
		fmt.Println(v, f.Provisioned().Path(), provisioned, err)
	}
	// Output:
	// {"spec":{"controlPlaneEndpoint":{"host":"10.0.0.1","port":6443}},"status":{"initialization":{"provisioned":true}}}
	// v1beta2 status.initialization.provisioned true <nil>
	// {"spec":{"controlPlaneEndpoint":{"host":"10.0.0.1","port":6443}},"status":{"ready":true}}
	// v1beta1 status.ready true <nil>
}

// Get tells an absent field from a field of the wrong type.
func ExampleField_Get() {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"providerID": "mem://vm-1", "replicas": "three"},
	}}
	id, err := contract.InfraMachine(contract.V1Beta2).ProviderID().Get(u)
	fmt.Println(id, err)

	_, err = contract.InfraMachine(contract.V1Beta2).Provisioned().Get(u)
	fmt.Println(errors.Is(err, contract.ErrFieldNotFound), err)

	_, err = contract.NewField[int64]("spec", "replicas").Get(u)
	fmt.Println(errors.Is(err, contract.ErrFieldType), err)
	// Output:
	// mem://vm-1 <nil>
	// true cannot get "status.initialization.provisioned": field not found
	// true cannot get "spec.replicas": field has the wrong type: want integer, got string
}

// Failure domains are a map in v1beta1 and a list in v1beta2; the accessor always gives a sorted list.
func ExampleFailureDomainsField() {
	yes := true
	domains := []contract.FailureDomain{{Name: "zone-b"}, {Name: "zone-a", ControlPlane: &yes}}
	for _, v := range contract.Versions {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		_ = contract.InfraCluster(v).FailureDomains().Set(u, domains)
		printJSON(u.Object["status"])
	}

	v1 := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{
		"failureDomains": map[string]any{"zone-b": map[string]any{}, "zone-a": map[string]any{"controlPlane": true}},
	}}}
	list, _ := contract.InfraCluster(contract.V1Beta1).FailureDomains().Get(v1)
	for _, d := range list {
		fmt.Println(d.Name, *d.ControlPlane)
	}
	// Output:
	// {"failureDomains":[{"controlPlane":true,"name":"zone-a"},{"name":"zone-b"}]}
	// {"failureDomains":{"zone-a":{"controlPlane":true},"zone-b":{}}}
	// zone-a true
	// zone-b false
}

// A CRD's labels say which contract it implements and with which API version.
func ExampleVersionFromLabels() {
	served := []string{"v1alpha4", "v1beta1", "v1beta2"}

	v, apiVersion, err := contract.VersionFromLabels(map[string]string{
		"cluster.x-k8s.io/v1beta1": "v1alpha4_v1beta1",
		"cluster.x-k8s.io/v1beta2": "v1beta2",
	}, served)
	fmt.Println(v, apiVersion, err)

	_, _, err = contract.VersionFromLabels(map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta3"}, served)
	fmt.Println(err)

	_, _, err = contract.VersionFromLabels(nil, served)
	fmt.Println(errors.Is(err, contract.ErrNoContractLabel))
	// Output:
	// v1beta2 v1beta2 <nil>
	// cannot use contract label "cluster.x-k8s.io/v1beta2": API version "v1beta3" is not served by the CRD (served: ["v1alpha4" "v1beta1" "v1beta2"])
	// true
}

// VersionLabelKeys lists the contract labels of a CRD, newest contract first, whether capkit supports them or not.
func ExampleVersionLabelKeys() {
	fmt.Println(contract.VersionLabelKeys(map[string]string{
		"cluster.x-k8s.io/v1beta1":  "v1alpha4_v1beta1",
		"cluster.x-k8s.io/v1beta2":  "v1beta2",
		"cluster.x-k8s.io/provider": "infrastructure-mem",
	}))
	// Output:
	// [cluster.x-k8s.io/v1beta2 cluster.x-k8s.io/v1beta1]
}
