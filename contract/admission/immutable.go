package admission

import (
	"context"
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
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
	for _, f := range changedFields(oldSpec, newSpec) {
		errs = append(errs, field.Forbidden(child(path, f), Immutable))
	}
	if len(errs) == 0 { // equal as JSON but not as Go values: report the whole spec
		errs = field.ErrorList{field.Forbidden(path, Immutable)}
	}
	return errs
}

// ValidateImmutableExcept returns a Forbidden error ("field is immutable") for each field that differs between
// oldSpec and newSpec, found at path (compared as JSON, as ValidateImmutable does), unless it lies under one of
// the mutable fields, given as paths of JSON keys below path: {"tags"} lets any tag change, {"network",
// "cidr"} only spec.network.cidr. A change above a mutable field (its parent added or removed) is not
// covered, and lists are compared whole, as package inplace does for the fields it updates in place: the
// webhook of an InfraMachine lets change exactly the fields its in-place update extension declares (the same
// list as inplace.Config's Mutable), plus the fields the provider checks itself (a providerID set once, say).
// A provider calls it from a Webhook's ValidateSpecUpdate; an empty or nil mutable makes the whole spec
// immutable.
func ValidateImmutableExcept(path *field.Path, oldSpec, newSpec any, mutable [][]string) field.ErrorList {
	var errs field.ErrorList
	for _, f := range changedFields(oldSpec, newSpec) {
		if !covered(f, mutable) {
			errs = append(errs, field.Forbidden(child(path, f), apivalidation.FieldImmutableErrorMsg))
		}
	}
	return errs
}

// covered reports whether the field f lies under one of the fields of mutable (empty ones cover nothing).
func covered(f []string, mutable [][]string) bool {
	for _, m := range mutable {
		if len(m) > 0 && len(m) <= len(f) && slices.Equal(f[:len(m)], m) {
			return true
		}
	}
	return false
}

// child returns the path of field f below path.
func child(path *field.Path, f []string) *field.Path {
	if len(f) == 0 {
		return path
	}
	return path.Child(f[0], f[1:]...)
}

// changedFields returns the JSON fields that differ between the specs, as keys below them, going into objects
// that both sides have, sorted.
func changedFields(oldSpec, newSpec any) [][]string {
	oldM, newM := toMap(oldSpec), toMap(newSpec)
	if oldM == nil || newM == nil {
		return nil
	}
	var out [][]string
	for _, k := range unionKeys(oldM, newM) {
		if equality.Semantic.DeepEqual(oldM[k], newM[k]) {
			continue
		}
		om, ok1 := oldM[k].(map[string]any)
		nm, ok2 := newM[k].(map[string]any)
		if ok1 && ok2 {
			for _, f := range changedFields(om, nm) {
				out = append(out, append([]string{k}, f...))
			}
			continue
		}
		out = append(out, []string{k})
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
