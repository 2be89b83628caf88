package providertest_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/providertest"
)

// printT is a providertest.TestingT that prints failures, for examples.
type printT struct{}

func (printT) Helper()                           {}
func (printT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func ExampleNewCluster() {
	infra := schema.GroupVersionKind{Group: "infrastructure.example.io", Version: "v1alpha1", Kind: "MemCluster"}
	for _, v := range []contract.Version{contract.V1Beta2, contract.V1Beta1} {
		c := providertest.NewCluster("default", "demo").WithAPIVersion(v).WithInfraRef(infra, "demo").Paused().Build()
		ref, _, _ := unstructured.NestedMap(c.Object, "spec", "infrastructureRef")
		fmt.Println(c.GetAPIVersion(), ref)
	}
	// Output:
	// cluster.x-k8s.io/v1beta2 map[apiGroup:infrastructure.example.io kind:MemCluster name:demo]
	// cluster.x-k8s.io/v1beta1 map[apiVersion:infrastructure.example.io/v1alpha1 kind:MemCluster name:demo namespace:default]
}

func ExampleNewMachine() {
	m := providertest.NewMachine("default", "demo-cp-0", "demo").ControlPlane().
		WithBootstrapSecret("demo-cp-0").WithVersion("v1.36.3").Build()
	secret := providertest.NewBootstrapSecret("default", "demo-cp-0", "demo", []byte("#cloud-config\n"))
	name, _ := contract.Machine(contract.V1Beta2).BootstrapDataSecretName().Get(m)
	fmt.Println(contract.IsControlPlaneMachine(m), name, string(secret.Data["format"]), len(lint.CheckBootstrapSecret(secret, nil)))
	// Output: true demo-cp-0 cloud-config 0
}

func ExampleAssertCondition() {
	u := &unstructured.Unstructured{}
	u.SetKind("MemMachine")
	u.SetName("m1")
	_ = contract.InfraMachine(contract.V1Beta2).Conditions().Set(u, []metav1.Condition{
		{Type: "VMReady", Status: metav1.ConditionFalse, Reason: "Booting", Message: "instance pending"},
	})
	fmt.Println(providertest.AssertCondition(printT{}, u, "VMReady", metav1.ConditionTrue, ""))
	// Output:
	// MemMachine "m1": condition "VMReady" is False/Booting ("instance pending"), want True/<any reason>
	// false
}

func ExampleAssertTypeConformance() {
	type oldStatus struct {
		Ready bool `json:"ready"`
	}
	type OldMachine struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Spec              struct {
			ProviderID string `json:"providerID,omitempty"`
		} `json:"spec"`
		Status oldStatus `json:"status"`
	}
	ok := providertest.AssertTypeConformance(printT{}, &OldMachine{}, lint.KindInfraMachine, contract.V1Beta2)
	fmt.Println(ok)
	// Output:
	// type *providertest_test.OldMachine: 1 contract violation:
	//   - providertest_test.OldMachine: inframachine.provisioned: status.initialization.provisioned: missing required field status.initialization.provisioned but status.ready exists: the type has the v1beta1 shape: embed contract.InfraClusterInitialization or InfraMachineInitialization as status.initialization (v1beta2 replaces status.ready)
	// false
}
