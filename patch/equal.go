package patch

import (
	"reflect"
)

// maxTreeDepth bounds equalTree's recursion. API objects are JSON trees a few dozen levels deep; a value
// nested deeper (or a cyclic one, which JSON cannot encode) is handed to reflect.DeepEqual.
const maxTreeDepth = 64

var stringMapType = reflect.TypeFor[map[string]string]()

// equalTree reports whether a and b are deeply equal, with reflect.DeepEqual's rules (nil and empty maps
// and slices differ, unexported fields count, funcs are equal only when both are nil). It is the no-op
// check of every Patch: unlike reflect.DeepEqual it keeps no record of visited pointers, which an
// acyclic API object does not need, and it walks the values by a plan built once for their type
// (plan.go). A value that is not a pointer is compared through copies.
func equalTree(a, b any) bool {
	if a == nil || b == nil {
		return a == b
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	if va.Kind() != reflect.Pointer {
		pa, pb := reflect.New(va.Type()), reflect.New(va.Type())
		pa.Elem().Set(va)
		pb.Elem().Set(vb)
		va, vb = pa, pb
	}
	if va.IsNil() || vb.IsNil() {
		return va.IsNil() == vb.IsNil()
	}
	eq, ok := planFor(va.Type().Elem())(va.UnsafePointer(), vb.UnsafePointer(), 0)
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
