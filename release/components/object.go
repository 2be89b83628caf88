package components

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/contract"
)

// object is one Kubernetes object as a JSON map.
type object = map[string]any

// toObjects converts typed objects to JSON maps, without the empty creationTimestamp and status that typed
// objects carry.
func toObjects(typed ...runtime.Object) ([]object, error) {
	out := make([]object, 0, len(typed))
	for _, t := range typed {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(t)
		if err != nil {
			return nil, fmt.Errorf("cannot convert %T: %w", t, err)
		}
		delete(meta(m), "creationTimestamp")
		delete(m, "status")
		out = append(out, m)
	}
	return out, nil
}

// typeMeta returns the TypeMeta of a typed object, which the converter writes as apiVersion and kind.
func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

// meta returns the metadata map of o, creating it when missing.
func meta(o object) map[string]any {
	return child(o, "metadata")
}

// child returns the map at key in m, creating it when missing.
func child(m map[string]any, key string) map[string]any {
	c, ok := m[key].(map[string]any)
	if !ok {
		c = map[string]any{}
		m[key] = c
	}
	return c
}

// labelProvider adds the clusterctl provider label with the given value.
func labelProvider(o object, provider string) {
	child(meta(o), "labels")[contract.ProviderLabel] = provider
}

// clusterScopedKinds are the kinds of the components that have no namespace.
var clusterScopedKinds = []string{"Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding",
	"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}

// clusterScoped reports whether o is of a kind without namespace.
func clusterScoped(o object) bool { return slices.Contains(clusterScopedKinds, kind(o)) }

// kind returns the kind of o.
func kind(o object) string { s, _ := o["kind"].(string); return s }

// ref returns "kind/name" of o, for messages.
func ref(o object) string { n, _ := meta(o)["name"].(string); return kind(o) + "/" + n }

// nested returns the map at path in v.
func nested(v any, path ...string) (map[string]any, bool) {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		v = m[p]
	}
	m, ok := v.(map[string]any)
	return m, ok
}
