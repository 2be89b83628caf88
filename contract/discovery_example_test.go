package contract_test

import (
	"context"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract"
)

// A manager asks the API server which contract the CRD of a kind implements; a kind that no CRD defines is
// ErrCRDNotFound, which the caller tells apart from other errors with errors.Is.
func ExampleDiscoverContractVersion() {
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "memclusters.infrastructure.example.com",
			Labels: map[string]string{contract.VersionLabel(contract.V1Beta2): "v1alpha1"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group:    "infrastructure.example.com",
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Kind: "MemCluster", Plural: "memclusters"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha1", Served: true, Storage: true}},
		},
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(crd).Build()
	ctx := context.Background()

	v, apiVersion, err := contract.DiscoverContractVersion(ctx, c, schema.GroupKind{Group: "infrastructure.example.com", Kind: "MemCluster"})
	fmt.Println(v, apiVersion, err)
	_, _, err = contract.DiscoverContractVersion(ctx, c, schema.GroupKind{Group: "infrastructure.example.com", Kind: "MemMachine"})
	fmt.Println(errors.Is(err, contract.ErrCRDNotFound))
	// Output:
	// v1beta2 v1alpha1 <nil>
	// true
}
