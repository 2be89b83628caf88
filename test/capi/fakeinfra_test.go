package capi_test

import (
	"context"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// The tests play a fake infrastructure provider by hand: three open CRDs in fakeGroup, labelled for the
// v1beta2 contract, whose status the tests write as a provider would.
const (
	fakeGroup   = "infrastructure.capkit.test"
	fakeVersion = "v1alpha1"
)

func fakeInfraCRDs() []*apiextensionsv1.CustomResourceDefinition {
	return []*apiextensionsv1.CustomResourceDefinition{
		fakeInfraCRD("FakeCluster"), fakeInfraCRD("FakeMachine"), fakeInfraCRD("FakeMachineTemplate"),
	}
}

func fakeInfraCRD(kind string) *apiextensionsv1.CustomResourceDefinition {
	plural := strings.ToLower(kind) + "s"
	open := apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:   plural + "." + fakeGroup,
			Labels: map[string]string{"cluster.x-k8s.io/v1beta2": fakeVersion},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: fakeGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: fakeVersion, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:       "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": open, "status": open},
				}},
			}},
		},
	}
}

// fake returns a fake infrastructure object with spec.
func fake(kind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(fakeGroup + "/" + fakeVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// fakeRef references a fake infrastructure object, as Cluster and Machine specs do.
func fakeRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: fakeGroup, Kind: kind, Name: name}
}

// provision plays the provider: it sets spec fields, then status.initialization.provisioned.
func provision(ctx context.Context, c client.Client, u *unstructured.Unstructured, spec map[string]any) error {
	if err := c.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
		return err
	}
	for k, v := range spec {
		if err := unstructured.SetNestedField(u.Object, v, "spec", k); err != nil {
			return err
		}
	}
	if len(spec) > 0 {
		if err := c.Update(ctx, u); err != nil {
			return err
		}
	}
	if err := unstructured.SetNestedField(u.Object, true, "status", "initialization", "provisioned"); err != nil {
		return err
	}
	return c.Status().Update(ctx, u)
}
