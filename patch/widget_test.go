package patch_test

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// widgetGroupVersion is the API group of Widget, a type of these tests only.
var widgetGroupVersion = schema.GroupVersion{Group: "patch.test.capkit.io", Version: "v1"}

// Widget has the shape of Cluster API's v1beta2 types: structs marked omitzero that hold lists marked
// omitempty, so that a non-nil empty list makes the struct non-zero and its JSON an empty object, which a
// round trip through the API forgets. Its CRD requires spec.topology.class, as Cluster API's requires the
// fields of a Cluster's topology.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitzero"`
	Status            WidgetStatus `json:"status,omitzero"`
}

// WidgetSpec is the spec of Widget.
type WidgetSpec struct {
	Size     string         `json:"size,omitempty"`
	Topology WidgetTopology `json:"topology,omitzero"`
}

// WidgetTopology is optional as a whole; when present, class is required.
type WidgetTopology struct {
	Class     string           `json:"class,omitempty"`
	Variables []WidgetVariable `json:"variables,omitempty"`
}

// WidgetVariable is one variable of a topology.
type WidgetVariable struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// WidgetStatus is the status of Widget.
type WidgetStatus struct {
	Conditions     []metav1.Condition   `json:"conditions,omitempty"`
	Initialization WidgetInitialization `json:"initialization,omitzero"`
	FailureDomains []string             `json:"failureDomains,omitempty"`
}

// WidgetInitialization is optional as a whole.
type WidgetInitialization struct {
	Provisioned *bool    `json:"provisioned,omitempty"`
	Addresses   []string `json:"addresses,omitempty"`
}

// GetConditions implements conditions.Getter.
func (w *Widget) GetConditions() []metav1.Condition { return w.Status.Conditions }

// SetConditions implements conditions.Setter.
func (w *Widget) SetConditions(c []metav1.Condition) { w.Status.Conditions = c }

// DeepCopyObject keeps nil and empty lists apart, as generated deep copies do.
func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Topology.Variables = cloneKeepNil(w.Spec.Topology.Variables)
	out.Status.Conditions = cloneKeepNil(w.Status.Conditions)
	out.Status.FailureDomains = cloneKeepNil(w.Status.FailureDomains)
	out.Status.Initialization.Addresses = cloneKeepNil(w.Status.Initialization.Addresses)
	if p := w.Status.Initialization.Provisioned; p != nil {
		v := *p
		out.Status.Initialization.Provisioned = &v
	}
	return &out
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyObject implements runtime.Object.
func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := &WidgetList{TypeMeta: l.TypeMeta}
	l.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*Widget))
	}
	return out
}

func cloneKeepNil[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	strings := apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}}
	anyObject := apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}
	schema := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"apiVersion": str, "kind": str, "metadata": {Type: "object"},
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"size": str,
			"topology": {Type: "object", Required: []string{"class"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"class": str,
				"variables": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Required: []string{"name"},
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str, "value": str}}}},
			}},
		}},
		"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"conditions":     {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &anyObject}},
			"failureDomains": strings,
			"initialization": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"provisioned": {Type: "boolean"}, "addresses": strings}},
		}},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + widgetGroupVersion.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgetGroupVersion.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: widgetGroupVersion.Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &schema},
			}},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }
