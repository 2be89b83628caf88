package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/internal/jsonvalue"
)

// ErrFieldNotFound is returned by Get when the field, or one of its parents, is absent.
var ErrFieldNotFound = jsonvalue.ErrNotFound

// ErrFieldType is returned by Get when the field holds a value of another type than the contract says, and by
// Set when a parent of the field is not an object or the value cannot be written as JSON.
var ErrFieldType = jsonvalue.ErrWrongType

// Path is a field path in an object, e.g. {"status", "initialization", "provisioned"}.
type Path []string

// String returns the path in dotted form, e.g. "status.initialization.provisioned".
func (p Path) String() string { return strings.Join(p, ".") }

// Field is a typed accessor for one contract field in an unstructured object. T is the Go type of the field
// as JSON decodes it (bool, string, int64, a struct, a map or a slice). Get returns a copy: changing the
// returned value never changes the object.
type Field[T any] struct {
	path Path
}

// NewField returns an accessor for the field at path.
func NewField[T any](path ...string) Field[T] { return Field[T]{path: path} }

// Path returns a copy of the field's path.
func (f Field[T]) Path() Path { return slices.Clone(f.path) }

// Get returns the field's value; ErrFieldNotFound when it (or a parent) is absent or null, ErrFieldType when it
// or a parent has another shape. Error messages name the path and the JSON types, never the value.
func (f Field[T]) Get(u *unstructured.Unstructured) (T, error) {
	if u == nil {
		var zero T
		return zero, fmt.Errorf("cannot get %q: nil object: %w", f.path, ErrFieldNotFound)
	}
	v, found, err := f.Lookup(u)
	if err == nil && !found {
		return v, fmt.Errorf("cannot get %q: %w", f.path, ErrFieldNotFound)
	}
	return v, err
}

// Lookup is Get for a field that may be absent: found is false, without an error, when the field (or a
// parent) is absent or null, so that the common absent field costs a map lookup. A nil object has no field.
func (f Field[T]) Lookup(u *unstructured.Unstructured) (value T, found bool, err error) {
	if u == nil {
		return value, false, nil
	}
	raw, err := jsonvalue.Lookup(u.Object, f.path)
	switch {
	case errors.Is(err, jsonvalue.ErrNotFound):
		return value, false, nil
	case err != nil:
		return value, false, fmt.Errorf("cannot get %q: %w", f.path, err)
	}
	value, err = f.decode(raw)
	return value, err == nil, err
}

// decode turns a JSON value into T: scalars by type assertion, a contract type that decodes its own usual
// shape (APIEndpoint) directly, anything else through encoding/json, whose errors name the JSON types.
func (f Field[T]) decode(raw any) (T, error) {
	var out T
	switch any(out).(type) {
	case bool, string, int64, float64:
		if v, ok := raw.(T); ok {
			return v, nil
		}
	}
	if d, ok := any(&out).(mapDecoder); ok {
		if m, isMap := raw.(map[string]any); isMap && d.fromJSONMap(m) {
			return out, nil
		}
		out = *new(T)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return out, fmt.Errorf("cannot get %q: %w: value of Go type %T is not JSON", f.path, ErrFieldType, raw)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			at := ""
			if te.Field != "" {
				at = fmt.Sprintf(" at %q", te.Field)
			}
			return out, fmt.Errorf("cannot get %q: %w: want %s%s, got %s",
				f.path, ErrFieldType, jsonKindOfType(te.Type), at, te.Value)
		}
		return out, fmt.Errorf("cannot get %q: %w: want %s, got %s",
			f.path, ErrFieldType, jsonKindOfType(reflect.TypeOf(&out).Elem()), jsonvalue.KindOf(raw))
	}
	return out, nil
}

// Has reports whether the field is present and not null, whatever its type.
func (f Field[T]) Has(u *unstructured.Unstructured) bool {
	if u == nil {
		return false
	}
	_, err := jsonvalue.Lookup(u.Object, f.path)
	return err == nil
}

// Set writes value at the field's path, creating parent objects as needed. A nil map, slice or pointer
// removes the field instead of writing null. Set fails with ErrFieldType when a parent is not an object.
func (f Field[T]) Set(u *unstructured.Unstructured, value T) error {
	if u == nil {
		return fmt.Errorf("cannot set %q: nil object", f.path)
	}
	if len(f.path) == 0 {
		return fmt.Errorf("cannot set %q: empty path", f.path)
	}
	v, err := toUnstructured(value)
	if err != nil {
		return fmt.Errorf("cannot set %q: %w: %w", f.path, ErrFieldType, err)
	}
	if v == nil {
		f.Delete(u)
		return nil
	}
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	m := u.Object
	for i, name := range f.path[:len(f.path)-1] {
		next, ok := m[name]
		if !ok || next == nil {
			child := map[string]any{}
			m[name] = child
			m = child
			continue
		}
		child, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("cannot set %q: %w: %q is %s, not an object", f.path, ErrFieldType, f.path[:i+1], jsonvalue.KindOf(next))
		}
		m = child
	}
	m[f.path[len(f.path)-1]] = v
	return nil
}

// Delete removes the field; deleting an absent field is not an error.
func (f Field[T]) Delete(u *unstructured.Unstructured) {
	if u != nil && u.Object != nil {
		unstructured.RemoveNestedField(u.Object, f.path...)
	}
}

// toUnstructured converts a Go value into the JSON-compatible form unstructured objects hold: maps, slices,
// strings, booleans, int64 and float64. It returns nil for a nil value or a nil map, slice or pointer.
func toUnstructured(value any) (any, error) {
	switch v := value.(type) {
	case nil:
		return nil, nil
	case bool, string, int64:
		return v, nil
	case int32:
		return int64(v), nil
	case int:
		return int64(v), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("number %v is not valid JSON", v)
		}
		return v, nil
	}
	b, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("cannot encode %T as JSON", value)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("cannot decode JSON of %T", value)
	}
	return normalizeNumbers(out), nil
}

// normalizeNumbers turns the float64 numbers of encoding/json into int64 where they are whole, as the
// apimachinery JSON decoder does, so that values survive DeepCopy and compare equal to decoded objects.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalizeNumbers(e)
		}
	case float64:
		if t == math.Trunc(t) && t >= math.MinInt64 && t < math.MaxInt64 {
			return int64(t)
		}
	}
	return v
}

// jsonKindOfType names the JSON type a Go type decodes from, for error messages.
func jsonKindOfType(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	t = jsonvalue.Deref(t)
	if k := jsonvalue.TypeOf(t); k != jsonvalue.Any {
		return k
	}
	return t.String()
}

// mapDecoder is a contract type that decodes a JSON object of its usual shape without a JSON round trip; it
// reports false for anything else, which encoding/json then decodes or rejects with a precise error.
type mapDecoder interface {
	fromJSONMap(m map[string]any) bool
}
