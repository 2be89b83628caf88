package jsonvalue

import (
	"encoding/json"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Any is the JSON type of a Go type that can hold any JSON value (interfaces, json.RawMessage and types with
// their own JSON encoding that TypeOf does not know).
const Any = "any"

// Go types whose JSON form is not what their Go kind says.
var (
	timeType          = reflect.TypeFor[metav1.Time]()
	microTimeType     = reflect.TypeFor[metav1.MicroTime]()
	durationType      = reflect.TypeFor[metav1.Duration]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
)

// Deref follows pointer types to the type they point to.
func Deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// TypeOf returns the OpenAPI type of Go type t in JSON: boolean, string, integer, number, object, array, or Any
// when the type can hold any JSON value. Pointers are followed.
func TypeOf(t reflect.Type) string {
	t = Deref(t)
	switch t {
	case timeType, microTimeType, durationType:
		return "string"
	case rawMessageType:
		return Any
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // []byte is base64 in JSON
		}
		return "array"
	case reflect.Struct:
		if t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) {
			return Any // its own encoding, e.g. resource.Quantity or intstr.IntOrString
		}
		return "object"
	}
	return Any
}

// KindOf names the JSON type of an unstructured value for messages: object, array, string, boolean, number,
// null, or "Go type <T>" for a value that is not JSON data.
func KindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64, int32, int, json.Number:
		return "number"
	case nil:
		return "null"
	default:
		return fmt.Sprintf("Go type %T", v)
	}
}
