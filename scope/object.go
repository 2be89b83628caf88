package scope

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// ErrFieldNotInType is returned when a provider type has no field at a path its contract version needs, for
// example a v1beta2 InfraMachine without status.initialization.provisioned. The error names the path, the
// Go type and the contract version.
var ErrFieldNotInType = errors.New("field not in type")

// toUnstructured returns obj as an unstructured map; an *unstructured.Unstructured is deep-copied.
func toUnstructured(obj client.Object) (map[string]any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return runtime.DeepCopyJSON(u.Object), nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot convert %T to unstructured: %w", obj, err)
	}
	return m, nil
}

// fromUnstructured replaces the content of obj with m.
func fromUnstructured(m map[string]any, obj client.Object) error {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.Object = m
		return nil
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("cannot convert unstructured to %T: not a non-nil pointer", obj)
	}
	fresh := reflect.New(v.Elem().Type())
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, fresh.Interface()); err != nil {
		return fmt.Errorf("cannot convert unstructured to %T: %w", obj, err)
	}
	v.Elem().Set(fresh.Elem())
	return nil
}

// setField writes value at f's path in obj: it checks that obj's type has the path, converts obj to
// unstructured, sets the field and converts back.
func setField[V any](obj client.Object, f contract.Field[V], v contract.Version, value V) error {
	if err := checkPath(obj, f.Path(), v); err != nil {
		return err
	}
	return mutate(obj, func(u *unstructured.Unstructured) error { return f.Set(u, value) })
}

// deleteField removes the field at f's path from obj.
func deleteField[V any](obj client.Object, f contract.Field[V]) error {
	return mutate(obj, func(u *unstructured.Unstructured) error { f.Delete(u); return nil })
}

// getField reads the field at f's path in obj; ok is false when it is absent.
func getField[V any](obj client.Object, f contract.Field[V]) (value V, ok bool, err error) {
	m, err := toUnstructured(obj)
	if err != nil {
		return value, false, err
	}
	value, err = f.Get(&unstructured.Unstructured{Object: m})
	if errors.Is(err, contract.ErrFieldNotFound) {
		return value, false, nil
	}
	if err != nil {
		return value, false, err
	}
	return value, true, nil
}

// mutate applies fn to an unstructured copy of obj and writes the result back into obj.
func mutate(obj client.Object, fn func(u *unstructured.Unstructured) error) error {
	m, err := toUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: m}
	if err := fn(u); err != nil {
		return err
	}
	return fromUnstructured(u.Object, obj)
}

type pathKey struct {
	t    reflect.Type
	path string
}

var pathCache sync.Map // pathKey → bool

// checkPath returns an error wrapping ErrFieldNotInType when obj's Go type has no JSON field at path.
// Unstructured objects have every path.
func checkPath(obj client.Object, path contract.Path, v contract.Version) error {
	if _, ok := obj.(*unstructured.Unstructured); ok {
		return nil
	}
	t := reflect.TypeOf(obj)
	key := pathKey{t: t, path: path.String()}
	has, cached := pathCache.Load(key)
	if !cached {
		has = typeHasPath(t, path)
		pathCache.Store(key, has)
	}
	if !has.(bool) {
		return fmt.Errorf("type %s has no field %q, which contract %s needs: %w", t.String(), path.String(), v, ErrFieldNotInType)
	}
	return nil
}

// typeHasPath walks t through its JSON field names; maps and interfaces accept any key below them.
func typeHasPath(t reflect.Type, path []string) bool {
	for len(path) > 0 {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Map, reflect.Interface:
			return true
		case reflect.Struct:
			next, ok := jsonField(t, path[0])
			if !ok {
				return false
			}
			t, path = next, path[1:]
		default:
			return false
		}
	}
	return true
}

// jsonField finds the field with JSON name name in struct t, looking into inlined and embedded structs.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		tagName, opts, _ := strings.Cut(tag, ",")
		inline := strings.Contains(","+opts+",", ",inline,") || (sf.Anonymous && tagName == "")
		if inline {
			ft := sf.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if found, ok := jsonField(ft, name); ok {
					return found, true
				}
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if tagName == "" {
			tagName = sf.Name
		}
		if tagName == name {
			return sf.Type, true
		}
	}
	return nil, false
}
