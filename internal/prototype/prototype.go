package prototype

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
)

// Factory returns a function that makes a new, empty object of proto's type on each call: proto must be a
// non-nil pointer to a struct, e.g. &v1beta2.MemCluster{}, and only its type is used, never the values of its
// fields. An unstructured prototype (runtime.Unstructured) is the exception that keeps its identity: the new
// objects get its apiVersion and kind, and nothing else. param names the parameter in the error.
func Factory[T any](param string, proto T) (func() T, error) {
	v := reflect.ValueOf(proto)
	switch {
	case !v.IsValid():
		return nil, fmt.Errorf("%s is nil: pass a pointer to an empty object, e.g. &MyKind{}", param)
	case v.Kind() != reflect.Pointer || v.Type().Elem().Kind() != reflect.Struct:
		return nil, fmt.Errorf("%s %T is not a pointer to a struct: pass e.g. &MyKind{}", param, proto)
	case v.IsNil():
		return nil, fmt.Errorf("%s is a nil %T: pass a pointer to an empty object, e.g. &MyKind{}", param, proto)
	}
	elem := v.Type().Elem()
	var setKind func(obj any)
	if u, ok := any(proto).(runtime.Unstructured); ok {
		gvk := u.GetObjectKind().GroupVersionKind()
		setKind = func(obj any) { obj.(runtime.Object).GetObjectKind().SetGroupVersionKind(gvk) }
	}
	return func() T {
		obj := reflect.New(elem).Interface()
		if setKind != nil {
			setKind(obj)
		}
		return obj.(T) //nolint:forcetypeassert // a *elem is a T: elem is the element type of a T
	}, nil
}
