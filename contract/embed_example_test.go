package contract_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
)

// The package doc's sketch of the role accessors: the same code reads and writes the fields of either
// contract version.
func Example_accessors() {
	for _, v := range contract.Versions {
		cluster := &unstructured.Unstructured{Object: map[string]any{}}
		machine := &unstructured.Unstructured{Object: map[string]any{}}
		id := "vm-1"
		_ = contract.InfraCluster(v).Provisioned().Set(cluster, true)
		_ = contract.InfraCluster(v).FailureDomains().Set(cluster, []contract.FailureDomain{{Name: "zone-b"}, {Name: "zone-a"}})
		// snippet:start accessors
		ready, err := contract.InfraCluster(v).Provisioned().Get(cluster) // status.ready or status.initialization.provisioned
		fmt.Println(ready, err)
		err = contract.InfraMachine(v).ProviderID().Set(machine, "mem://"+id)
		fmt.Println(err)
		domains, err := contract.InfraCluster(v).FailureDomains().Get(cluster) // always a list sorted by name
		fmt.Println(domains[0].Name, domains[1].Name, err)
		// snippet:end accessors
	}
	// Output:
	// true <nil>
	// <nil>
	// zone-a zone-b <nil>
	// true <nil>
	// <nil>
	// zone-a zone-b <nil>
}

// snippet:start embedding

type MemClusterSpec struct {
	// +optional
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
}

type MemClusterStatus struct {
	// +optional
	Initialization contract.InfraClusterInitialization `json:"initialization,omitempty,omitzero"`
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=100
	FailureDomains []contract.FailureDomain `json:"failureDomains,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=32
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// snippet:end embedding

// MemMachineTemplate stands for an InfraMachineTemplate that supports autoscaling from zero.
type MemMachineTemplate struct {
	// snippet:start capacity
	// +optional
	Status contract.MachineTemplateCapacity `json:"status,omitempty,omitzero"`
	// snippet:end capacity
}

// Embedded, the contract types have the v1beta2 JSON shapes: an empty initialization or capacity is left
// out (omitzero), which their CRD schemas require.
func Example_embedding() {
	spec := MemClusterSpec{ControlPlaneEndpoint: contract.APIEndpoint{Host: "10.0.0.1", Port: 6443}}
	var status MemClusterStatus
	printJSON(spec)
	printJSON(status)
	status.Initialization.SetProvisioned(true)
	printJSON(status)
	printJSON(MemMachineTemplate{})
	// Output:
	// {"controlPlaneEndpoint":{"host":"10.0.0.1","port":6443}}
	// {}
	// {"initialization":{"provisioned":true}}
	// {}
}
