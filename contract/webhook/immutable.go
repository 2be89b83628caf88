package webhook

import (
	"context"
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TopologyDryRunAnnotation marks the objects Cluster API's topology controller sends in its server-side-apply
// dry-runs.
const TopologyDryRunAnnotation = "topology.cluster.x-k8s.io/dry-run"

// Immutable is the detail of the error about a changed template.
const Immutable = "field is immutable: create a new template and point its users at it"

// isTopologyDryRun reports whether the admission request in ctx is a dry-run and obj carries
// TopologyDryRunAnnotation: a request of Cluster API's topology controller, which an immutability check must
// let through (nothing is stored). Without an admission request in ctx it reports false.
func isTopologyDryRun(ctx context.Context, obj metav1.Object) bool {
	req, err := admission.RequestFromContext(ctx)
	if err != nil || req.DryRun == nil || !*req.DryRun || obj == nil {
		return false
	}
	_, ok := obj.GetAnnotations()[TopologyDryRunAnnotation]
	return ok
}

// ValidateImmutable returns a Forbidden error for each field that differs between oldSpec and newSpec, found
// at path (compared as JSON, so each error names the field as the API does, down to the first value that is
// not an object, e.g. spec.template.spec.flavor), or nothing when they are equal or the request is a topology
// dry-run (the admission request in ctx is a dry-run and newObj carries TopologyDryRunAnnotation). Typically
// path is spec and the specs are the templates' whole spec, so that spec.template.spec and
// spec.template.metadata are both covered. A Webhook with Template calls it; a provider with a hand-written
// template webhook calls it from its ValidateUpdate.
func ValidateImmutable(ctx context.Context, newObj metav1.Object, path *field.Path, oldSpec, newSpec any) field.ErrorList {
	if isTopologyDryRun(ctx, newObj) || equality.Semantic.DeepEqual(oldSpec, newSpec) {
		return nil
	}
	var errs field.ErrorList
	for _, p := range changedPaths(path, oldSpec, newSpec) {
		errs = append(errs, field.Forbidden(p, Immutable))
	}
	if len(errs) == 0 { // equal as JSON but not as Go values: report the whole spec
		errs = field.ErrorList{field.Forbidden(path, Immutable)}
	}
	return errs
}

// changedPaths returns the paths, under path, of the JSON fields that differ, going into objects that both
// sides have.
func changedPaths(path *field.Path, oldSpec, newSpec any) []*field.Path {
	oldM, newM := toMap(oldSpec), toMap(newSpec)
	if oldM == nil || newM == nil {
		return nil
	}
	var out []*field.Path
	for _, k := range unionKeys(oldM, newM) {
		if equality.Semantic.DeepEqual(oldM[k], newM[k]) {
			continue
		}
		o, n := oldM[k], newM[k]
		om, ok1 := o.(map[string]any)
		nm, ok2 := n.(map[string]any)
		if ok1 && ok2 {
			out = append(out, changedPaths(path.Child(k), om, nm)...)
			continue
		}
		out = append(out, path.Child(k))
	}
	return out
}

func toMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
