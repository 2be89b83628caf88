// Package testtypes holds the API types and CRDs of capkit's own tests (scope, reconcile, patch, mocks). They are a
// minimal InfraCluster and InfraMachine of the v1beta2 contract (FooCluster, FooMachine, implementing every accessor
// the scopes use), a type without them (Legacy), and their CRDs. Examples use the public memcloud types instead.
package testtypes

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/providertest/testenv"
)

// GroupVersion is the API group and version of the test types.
var GroupVersion = schema.GroupVersion{Group: "infrastructure.capkit.io", Version: "v1alpha1"}

// CRDs holds the CRD YAML of the test types, in crds/.
//
//go:embed crds/*.yaml
var CRDs embed.FS

// CRDObjects returns the decoded CRDs of the test types.
func CRDObjects() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return testenv.ReadCRDs(CRDs, "crds")
}

// AddToScheme registers the test types.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &FooCluster{}, &FooClusterList{}, &FooMachine{}, &FooMachineList{}, &Legacy{}, &LegacyList{},
		&FooMachinePool{}, &FooMachinePoolList{}, &FooClusterIdentity{}, &FooClusterIdentityList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// FooCluster is a v1beta2-contract InfraCluster; it implements conditions.Setter and the contract accessors
// (generated: zz_generated.accessors.go).
//
// +kubebuilder:object:root=true
type FooCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooClusterSpec   `json:"spec,omitempty"`
	Status            FooClusterStatus `json:"status,omitempty"`
}

// FooClusterSpec is the spec of FooCluster.
type FooClusterSpec struct {
	ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint,omitempty"`
	Region               string               `json:"region,omitempty"`
	IdentityRef          *identity.Ref        `json:"identityRef,omitempty"`
}

// FooClusterStatus is the status of FooCluster.
type FooClusterStatus struct {
	Initialization *contract.InfraClusterInitialization `json:"initialization,omitempty"`
	Conditions     []metav1.Condition                   `json:"conditions,omitempty"`
	FailureDomains []contract.FailureDomain             `json:"failureDomains,omitempty"`
	Resources      map[string]string                    `json:"resources,omitempty"`
}

// FooMachine is a v1beta2-contract InfraMachine; it implements conditions.Setter and the contract accessors
// (generated: zz_generated.accessors.go).
//
// +kubebuilder:object:root=true
type FooMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooMachineSpec   `json:"spec,omitempty"`
	Status            FooMachineStatus `json:"status,omitempty"`
}

// FooMachineSpec is the spec of FooMachine.
type FooMachineSpec struct {
	ProviderID    string `json:"providerID,omitempty"`
	FailureDomain string `json:"failureDomain,omitempty"`
	Size          string `json:"size,omitempty"`
}

// FooMachineStatus is the status of FooMachine.
type FooMachineStatus struct {
	Initialization *contract.InfraMachineInitialization `json:"initialization,omitempty"`
	Conditions     []metav1.Condition                   `json:"conditions,omitempty"`
	Addresses      []contract.MachineAddress            `json:"addresses,omitempty"`
	FailureDomain  string                               `json:"failureDomain,omitempty"`
	Resources      map[string]string                    `json:"resources,omitempty"`
}

// Legacy is a type that lacks the v1beta2 status fields: only spec.
type Legacy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooClusterSpec `json:"spec,omitempty"`
}

// FooClusterList is a list of FooCluster.
type FooClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FooCluster `json:"items"`
}

// FooMachineList is a list of FooMachine.
type FooMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FooMachine `json:"items"`
}

// LegacyList is a list of Legacy.
type LegacyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Legacy `json:"items"`
}

func deepCopy[T any](in *T) *T {
	if in == nil {
		return nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		panic(err) // test types always marshal
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

// DeepCopyObject implements runtime.Object.
func (c *FooCluster) DeepCopyObject() runtime.Object { return deepCopy(c) }

// DeepCopyObject implements runtime.Object.
func (c *FooClusterList) DeepCopyObject() runtime.Object { return deepCopy(c) }

// DeepCopyObject implements runtime.Object.
func (m *FooMachine) DeepCopyObject() runtime.Object { return deepCopy(m) }

// DeepCopyObject implements runtime.Object.
func (m *FooMachineList) DeepCopyObject() runtime.Object { return deepCopy(m) }

// DeepCopyObject implements runtime.Object.
func (l *Legacy) DeepCopyObject() runtime.Object { return deepCopy(l) }

// DeepCopyObject implements runtime.Object.
func (l *LegacyList) DeepCopyObject() runtime.Object { return deepCopy(l) }

// Scheme returns a scheme with client-go's types and the test types.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = AddToScheme(s)
	return s
}

// Main runs a test package on envtest with the test types' CRDs installed; see testenv.Main.
func Main(m *testing.M, env **testenv.Environment) {
	crds, err := CRDObjects()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testenv.Main(m, env, testenv.WithCRDs(crds...), testenv.WithScheme(Scheme()))
}
