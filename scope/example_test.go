package scope_test

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/scope"
)

// The types below stand for a provider's own API types (api/v1alpha1 in a Kubebuilder repository). The
// scope reaches each contract field through a one-line accessor method, never by reflection.

var demoGroupVersion = schema.GroupVersion{Group: "infrastructure.example.com", Version: "v1alpha1"}

// DemoCluster is an InfraCluster of the v1beta2 contract.
type DemoCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              DemoClusterSpec   `json:"spec,omitempty"`
	Status            DemoClusterStatus `json:"status,omitempty"`
}

// DemoClusterSpec is the spec of DemoCluster.
type DemoClusterSpec struct {
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty"`
}

// DemoClusterStatus is the status of DemoCluster.
type DemoClusterStatus struct {
	Initialization *contract.InfraClusterInitialization `json:"initialization,omitempty"`
	Conditions     []metav1.Condition                   `json:"conditions,omitempty"`
	Resources      map[string]string                    `json:"resources,omitempty"`
}

func (c *DemoCluster) GetConditions() []metav1.Condition      { return c.Status.Conditions }
func (c *DemoCluster) SetConditions(conds []metav1.Condition) { c.Status.Conditions = conds }
func (c *DemoCluster) GetResourceIDs() map[string]string      { return c.Status.Resources }
func (c *DemoCluster) SetResourceIDs(ids map[string]string)   { c.Status.Resources = ids }
func (c *DemoCluster) GetControlPlaneEndpoint() contract.APIEndpoint {
	return c.Spec.ControlPlaneEndpoint
}
func (c *DemoCluster) SetControlPlaneEndpoint(ep contract.APIEndpoint) {
	c.Spec.ControlPlaneEndpoint = ep
}
func (c *DemoCluster) IsProvisioned() bool {
	return c.Status.Initialization != nil && c.Status.Initialization.IsProvisioned()
}
func (c *DemoCluster) SetProvisioned(v bool) {
	if c.Status.Initialization == nil {
		c.Status.Initialization = &contract.InfraClusterInitialization{}
	}
	c.Status.Initialization.SetProvisioned(v)
}
func (c *DemoCluster) DeepCopyObject() runtime.Object { return deepCopyJSON(c) } // controller-gen writes this

// DemoMachine is an InfraMachine of the v1beta2 contract.
type DemoMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              DemoMachineSpec   `json:"spec,omitempty"`
	Status            DemoMachineStatus `json:"status,omitempty"`
}

// DemoMachineSpec is the spec of DemoMachine.
type DemoMachineSpec struct {
	ProviderID string `json:"providerID,omitempty"`
}

// DemoMachineStatus is the status of DemoMachine.
type DemoMachineStatus struct {
	Initialization *contract.InfraMachineInitialization `json:"initialization,omitempty"`
	Conditions     []metav1.Condition                   `json:"conditions,omitempty"`
	Resources      map[string]string                    `json:"resources,omitempty"`
}

func (m *DemoMachine) GetConditions() []metav1.Condition    { return m.Status.Conditions }
func (m *DemoMachine) SetConditions(c []metav1.Condition)   { m.Status.Conditions = c }
func (m *DemoMachine) GetResourceIDs() map[string]string    { return m.Status.Resources }
func (m *DemoMachine) SetResourceIDs(ids map[string]string) { m.Status.Resources = ids }
func (m *DemoMachine) GetProviderID() string                { return m.Spec.ProviderID }
func (m *DemoMachine) SetProviderID(id string)              { m.Spec.ProviderID = id }
func (m *DemoMachine) IsProvisioned() bool {
	return m.Status.Initialization != nil && m.Status.Initialization.IsProvisioned()
}
func (m *DemoMachine) SetProvisioned(v bool) {
	if m.Status.Initialization == nil {
		m.Status.Initialization = &contract.InfraMachineInitialization{}
	}
	m.Status.Initialization.SetProvisioned(v)
}
func (m *DemoMachine) DeepCopyObject() runtime.Object { return deepCopyJSON(m) } // controller-gen writes this

func deepCopyJSON[T any](in *T) *T {
	out := new(T)
	b, _ := json.Marshal(in)
	_ = json.Unmarshal(b, out)
	return out
}

// demoScheme registers the demo types, as the provider's AddToScheme does.
func demoScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(demoGroupVersion, &DemoCluster{}, &DemoMachine{})
	return s
}

// coreObject returns a cluster.x-k8s.io/v1beta2 Cluster or Machine of the demo cluster, as read by a
// reconciler.
func coreObject(kind, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": kind,
		"metadata": map[string]any{"namespace": "default", "name": name},
		"spec":     map[string]any{"clusterName": "demo"},
	}}
}

// A provider's service sets contract fields on its own typed object; Close persists them and writes the
// Ready summary of the conditions.
func ExampleNewClusterScope() {
	ctx := context.Background()
	infra := &DemoCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "demo"}}
	c := fake.NewClientBuilder().WithScheme(demoScheme()).WithObjects(infra).WithStatusSubresource(infra).Build()

	s, err := scope.NewClusterScope(ctx, c, infra, coreObject("Cluster", "demo"),
		scope.WithContractVersion(contract.V1Beta2),
		scope.WithOwnershipKeyGenerator(func() (string, error) { return "k7x2", nil }))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.PatchNow(ctx) // persists the ownership key before any cloud call
	key, _ := s.OwnershipKey()

	// What a service does, through scope.ClusterScoper[*DemoCluster]:
	_ = s.SetResourceID("vpc", "vpc-0a1b")
	s.InfraCluster().SetControlPlaneEndpoint(contract.APIEndpoint{Host: "10.0.0.10", Port: 6443})
	s.InfraCluster().SetProvisioned(true)
	_, _ = conditions.MarkTrue(s.InfraCluster(), "NetworkReady", "Created", "")

	if err := s.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	// What the API server has now.
	onServer := &DemoCluster{}
	_ = c.Get(ctx, client.ObjectKeyFromObject(infra), onServer)
	fmt.Println("key:", key, onServer.Labels[scope.OwnershipKeyLabel])
	fmt.Println("vpc:", onServer.Status.Resources["vpc"])
	fmt.Println("endpoint:", onServer.Spec.ControlPlaneEndpoint.Host)
	fmt.Println("provisioned:", onServer.IsProvisioned())
	fmt.Println("ready:", conditions.IsTrue(onServer, conditions.Ready))
	// Output:
	// key: k7x2 k7x2
	// vpc: vpc-0a1b
	// endpoint: 10.0.0.10
	// provisioned: true
	// ready: true
}

// An unstructured InfraCluster is read and written at the paths of its contract version: here v1beta1,
// whose provisioned flag is status.ready and whose failure domains are a map.
func ExampleNewClusterScope_unstructured() {
	ctx := context.Background()
	infra := &unstructured.Unstructured{}
	infra.SetGroupVersionKind(demoGroupVersion.WithKind("LegacyCluster"))
	infra.SetNamespace("default")
	infra.SetName("demo")
	c := fake.NewClientBuilder().WithObjects(infra).WithStatusSubresource(infra).Build()

	cluster := coreObject("Cluster", "demo")
	cluster.SetAPIVersion("cluster.x-k8s.io/v1beta1")
	s, err := scope.NewClusterScope(ctx, c, infra, cluster, scope.WithContractVersion(contract.V1Beta1))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.SetProvisioned(true)
	_ = s.SetFailureDomains([]contract.FailureDomain{{Name: "zone-b"}, {Name: "zone-a"}})
	status, _ := json.Marshal(infra.Object["status"])
	fmt.Println(string(status))
	// Output:
	// {"failureDomains":{"zone-a":{},"zone-b":{}},"ready":true}
}
