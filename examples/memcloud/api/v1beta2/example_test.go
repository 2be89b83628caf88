package v1beta2_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// A MemCluster read the way Cluster API reads it: as an unstructured object, through the contract paths of
// v1beta2.
func Example() {
	c := &v1beta2.MemCluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1beta2.GroupVersion.String(), Kind: "MemCluster"},
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "default"},
		Spec: v1beta2.MemClusterSpec{
			ControlPlaneEndpoint: contract.APIEndpoint{Host: "lb-1f2e3d4c.memcloud.local", Port: v1beta2.DefaultLoadBalancerPort},
			FailureDomains:       []string{"az-1", "az-2"},
		},
		Status: v1beta2.MemClusterStatus{
			Initialization: contract.InfraClusterInitialization{Provisioned: ptr.To(true)},
			FailureDomains: []contract.FailureDomain{{Name: "az-1", ControlPlane: ptr.To(true)}, {Name: "az-2", ControlPlane: ptr.To(true)}},
			Resources:      map[string]string{"network": "net-1f2e3d4c"},
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	u := &unstructured.Unstructured{Object: obj}

	fields := contract.InfraCluster(contract.V1Beta2)
	endpoint, _ := fields.ControlPlaneEndpoint().Get(u)
	provisioned, _ := fields.Provisioned().Get(u)
	domains, _ := fields.FailureDomains().Get(u)
	fmt.Printf("endpoint %s:%d\n", endpoint.Host, endpoint.Port)
	fmt.Println("provisioned at", fields.Provisioned().Path(), "=", provisioned)
	fmt.Println("failure domains:", len(domains), domains[0].Name, domains[1].Name)
	fmt.Println("violations:", len(lint.CheckInfraCluster(u, contract.V1Beta2)))
	// Output:
	// endpoint lb-1f2e3d4c.memcloud.local:6443
	// provisioned at status.initialization.provisioned = true
	// failure domains: 2 az-1 az-2
	// violations: 0
}

// Provider IDs tie a MemMachine, its Machine and the Node together.
func ExampleInstanceIDFromProviderID() {
	providerID := v1beta2.ProviderID("i-1f2e3d4c")
	id, err := v1beta2.InstanceIDFromProviderID(providerID)
	fmt.Println(providerID, id, err)

	_, err = v1beta2.InstanceIDFromProviderID("aws:///i-1")
	fmt.Println(err)
	// Output:
	// memcloud://i-1f2e3d4c i-1f2e3d4c <nil>
	// cannot parse provider ID "aws:///i-1": want prefix "memcloud://": invalid provider ID
}
