package hostedcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/secret"
)

// Group, version and kinds of the stand-in control plane.
const (
	Group        = "controlplane.test.capkit.io"
	Version      = "v1alpha1"
	Kind         = "HostedControlPlane"
	TemplateKind = "HostedControlPlaneTemplate"
)

// GroupVersion is the API version of both kinds.
var GroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// CRDs returns the CRDs of both kinds, labelled for contract v1beta2. Their schemas keep any field: the
// topology controller writes spec.version (and metadata), Run writes the status.
func CRDs() []*apiextensionsv1.CustomResourceDefinition {
	anything := &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}
	crd := func(kind, plural string, status bool) *apiextensionsv1.CustomResourceDefinition {
		props := map[string]apiextensionsv1.JSONSchemaProps{"spec": *anything}
		version := apiextensionsv1.CustomResourceDefinitionVersion{Name: Version, Served: true, Storage: true}
		if status {
			props["status"] = *anything
			version.Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
		}
		version.Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}}
		return &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + "." + Group, Labels: map[string]string{
				clusterv1.GroupVersion.String(): Version,
			}},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: Group, Scope: apiextensionsv1.NamespaceScoped,
				Names:    apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{version},
			},
		}
	}
	return []*apiextensionsv1.CustomResourceDefinition{
		crd(Kind, "hostedcontrolplanes", true),
		crd(TemplateKind, "hostedcontrolplanetemplates", false),
	}
}

// Template returns an empty HostedControlPlaneTemplate namespace/name, for a ClusterClass's controlPlane.
func Template(namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(GroupVersion.WithKind(TemplateKind))
	u.SetNamespace(namespace)
	u.SetName(name)
	_ = unstructured.SetNestedMap(u.Object, map[string]any{}, "spec", "template", "spec")
	return u
}

// Run reconciles every HostedControlPlane through c every interval until ctx ends. Errors are retried at the
// next interval; the last one is returned when ctx ends, nil if the last pass succeeded.
func Run(ctx context.Context, c client.Client, interval time.Duration) error {
	var last error
	for {
		last = reconcileAll(ctx, c)
		select {
		case <-ctx.Done():
			return last
		case <-time.After(interval):
		}
	}
}

func reconcileAll(ctx context.Context, c client.Client) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(GroupVersion.WithKind(Kind + "List"))
	if err := c.List(ctx, list); err != nil {
		return fmt.Errorf("cannot list %s: %w", Kind, err)
	}
	for i := range list.Items {
		if err := reconcileOne(ctx, c, &list.Items[i]); err != nil {
			return err
		}
	}
	return nil
}

// reconcileOne initializes cp once its Cluster has an endpoint: certificates first, then the status.
func reconcileOne(ctx context.Context, c client.Client, cp *unstructured.Unstructured) error {
	if cp.GetDeletionTimestamp() != nil {
		return nil
	}
	name := cp.GetLabels()[clusterv1.ClusterNameLabel]
	if name == "" {
		return nil // the topology controller sets the label on create
	}
	cluster := &clusterv1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: cp.GetNamespace(), Name: name}, cluster); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !cluster.Spec.ControlPlaneEndpoint.IsValid() {
		return nil
	}
	owner := metav1.OwnerReference{APIVersion: GroupVersion.String(), Kind: Kind, Name: cp.GetName(), UID: cp.GetUID(), Controller: ptr.To(true)}
	certs := secret.NewCertificatesForInitialControlPlane(nil)
	if err := certs.LookupOrGenerate(ctx, c, client.ObjectKeyFromObject(cluster), owner); err != nil {
		return fmt.Errorf("cannot create the certificates of cluster %s/%s: %w", cluster.Namespace, name, err)
	}
	version, _, _ := unstructured.NestedString(cp.Object, "spec", "version")
	current, _, _ := unstructured.NestedString(cp.Object, "status", "version")
	initialized, _, _ := unstructured.NestedBool(cp.Object, "status", "initialization", "controlPlaneInitialized")
	if initialized && current == version {
		return nil
	}
	patched := cp.DeepCopy()
	if err := unstructured.SetNestedField(patched.Object, true, "status", "initialization", "controlPlaneInitialized"); err != nil {
		return err
	}
	if err := unstructured.SetNestedField(patched.Object, version, "status", "version"); err != nil {
		return err
	}
	if err := c.Status().Patch(ctx, patched, client.MergeFrom(cp)); err != nil {
		return fmt.Errorf("cannot report %s %s/%s initialized: %w", Kind, cp.GetNamespace(), cp.GetName(), err)
	}
	return nil
}
