package patch

import (
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxTreeDepth bounds equalTree's recursion. API objects are JSON trees a few dozen levels deep; a value
// nested deeper (or a cyclic one, which JSON cannot encode) is handed to reflect.DeepEqual.
const maxTreeDepth = 64

var (
	stringMapType  = reflect.TypeFor[map[string]string]()
	objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()
	timeType       = reflect.TypeFor[metav1.Time]()
	conditionType  = reflect.TypeFor[metav1.Condition]()
)

// equalTree reports whether a and b are deeply equal, with reflect.DeepEqual's rules (nil and empty maps
// and slices differ, unexported fields count, funcs are equal only when both are nil). It is the no-op
// check of every Patch: unlike reflect.DeepEqual it keeps no record of visited pointers, which an
// acyclic API object does not need, it compares map[string]string (labels, annotations) without
// reflection, and it walks a struct behind a pointer by a plan built once for its type (plan.go).
func equalTree(a, b any) bool {
	if a == nil || b == nil {
		return a == b
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	var eq, ok bool
	if va.Kind() == reflect.Pointer && !va.IsNil() && !vb.IsNil() {
		eq, ok = planFor(va.Type().Elem())(va.UnsafePointer(), vb.UnsafePointer(), 0)
	} else {
		eq, ok = equalValue(va, vb, 0)
	}
	if !ok {
		return reflect.DeepEqual(a, b)
	}
	return eq
}

// equalValue compares two values of the same type. ok is false when the values nest deeper than
// maxTreeDepth, and the caller must decide another way.
func equalValue(a, b reflect.Value, depth int) (eq, ok bool) {
	if depth > maxTreeDepth {
		return false, false
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil(), true
		}
		if a.UnsafePointer() == b.UnsafePointer() {
			return true, true
		}
		return equalValue(a.Elem(), b.Elem(), depth+1)
	case reflect.Struct:
		if eq, ok, done := equalKnownStruct(a, b, depth); done {
			return eq, ok
		}
		for i := range a.NumField() {
			if eq, ok := equalValue(a.Field(i), b.Field(i), depth+1); !eq || !ok {
				return eq, ok
			}
		}
		return true, true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false, true
		}
		if a.Len() == 0 || a.UnsafePointer() == b.UnsafePointer() {
			return true, true
		}
		return equalElems(a, b, depth)
	case reflect.Array:
		return equalElems(a, b, depth)
	case reflect.Map:
		return equalMap(a, b, depth)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil(), true
		}
		ea, eb := a.Elem(), b.Elem()
		if ea.Type() != eb.Type() {
			return false, true
		}
		return equalValue(ea, eb, depth+1)
	case reflect.String:
		return a.String() == b.String(), true
	case reflect.Bool:
		return a.Bool() == b.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint(), true
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float(), true
	case reflect.Complex64, reflect.Complex128:
		return a.Complex() == b.Complex(), true
	case reflect.Func:
		return a.IsNil() && b.IsNil(), true
	default: // channels and unsafe pointers: identity, as reflect.DeepEqual
		return a.Pointer() == b.Pointer(), true
	}
}

func equalElems(a, b reflect.Value, depth int) (eq, ok bool) {
	for i := range a.Len() {
		if eq, ok := equalValue(a.Index(i), b.Index(i), depth+1); !eq || !ok {
			return eq, ok
		}
	}
	return true, true
}

func equalMap(a, b reflect.Value, depth int) (eq, ok bool) {
	if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
		return false, true
	}
	if a.Len() == 0 || a.UnsafePointer() == b.UnsafePointer() {
		return true, true
	}
	if a.Type() == stringMapType && a.CanInterface() {
		return equalStringMaps(a.Interface().(map[string]string), b.Interface().(map[string]string)), true
	}
	it := a.MapRange()
	for it.Next() {
		w := b.MapIndex(it.Key())
		if !w.IsValid() {
			return false, true
		}
		if eq, ok := equalValue(it.Value(), w, depth+1); !eq || !ok {
			return eq, ok
		}
	}
	return true, true
}

// equalKnownStruct compares the structs every API object has (its metadata, times, conditions) without
// reflection, when they are addressable (inside a pointer, slice or array). done is false for other types.
func equalKnownStruct(a, b reflect.Value, depth int) (eq, ok, done bool) {
	if !a.CanAddr() || !b.CanAddr() || !a.CanInterface() {
		return false, false, false
	}
	switch a.Type() {
	case objectMetaType:
		eq, ok = equalObjectMeta(a.Addr().Interface().(*metav1.ObjectMeta), b.Addr().Interface().(*metav1.ObjectMeta), depth)
		return eq, ok, true
	case timeType:
		return equalTime(a.Addr().Interface().(*metav1.Time), b.Addr().Interface().(*metav1.Time)), true, true
	case conditionType:
		return equalCondition(a.Addr().Interface().(*metav1.Condition), b.Addr().Interface().(*metav1.Condition)), true, true
	}
	return false, false, false
}

func equalObjectMeta(a, b *metav1.ObjectMeta, depth int) (eq, ok bool) {
	if a.Name != b.Name || a.Namespace != b.Namespace || a.GenerateName != b.GenerateName ||
		a.UID != b.UID || a.ResourceVersion != b.ResourceVersion || a.Generation != b.Generation ||
		a.SelfLink != b.SelfLink || //nolint:staticcheck // deprecated, but a field reflect.DeepEqual compares too
		!equalTime(&a.CreationTimestamp, &b.CreationTimestamp) ||
		!equalStringMaps(a.Labels, b.Labels) || !equalStringMaps(a.Annotations, b.Annotations) ||
		!equalStrings(a.Finalizers, b.Finalizers) {
		return false, true
	}
	// The rarely set pointer and list fields go through the general walk.
	for _, f := range [...][2]any{{&a.DeletionTimestamp, &b.DeletionTimestamp},
		{&a.DeletionGracePeriodSeconds, &b.DeletionGracePeriodSeconds},
		{&a.OwnerReferences, &b.OwnerReferences}, {&a.ManagedFields, &b.ManagedFields}} {
		if eq, ok := equalValue(reflect.ValueOf(f[0]).Elem(), reflect.ValueOf(f[1]).Elem(), depth+1); !eq || !ok {
			return eq, ok
		}
	}
	return true, true
}

// equalTime compares two times as reflect.DeepEqual does: same wall clock, monotonic reading and location.
func equalTime(a, b *metav1.Time) bool {
	if a.Time == b.Time { //nolint:staticcheck // the same representation, not the same instant: a changed location is a change
		return true
	}
	return reflect.DeepEqual(a.Time, b.Time) // equal locations held at different addresses
}

func equalCondition(a, b *metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.ObservedGeneration == b.ObservedGeneration &&
		a.Reason == b.Reason && a.Message == b.Message && equalTime(&a.LastTransitionTime, &b.LastTransitionTime)
}

func equalStringMaps(a, b map[string]string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, found := b[k]; !found || v != w {
			return false
		}
	}
	return true
}

func equalStrings(a, b []string) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}
