package jsonvalue

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type addressType string

type endpoint struct {
	Host string `json:"host"`
	Port int32  `json:"port"`
}

func TestTypeOf(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[bool](), "boolean"},
		{reflect.TypeFor[*string](), "string"},
		{reflect.TypeFor[addressType](), "string"},
		{reflect.TypeFor[int32](), "integer"},
		{reflect.TypeFor[uint8](), "integer"},
		{reflect.TypeFor[float32](), "number"},
		{reflect.TypeFor[map[string]int](), "object"},
		{reflect.TypeFor[endpoint](), "object"},
		{reflect.TypeFor[**endpoint](), "object"},
		{reflect.TypeFor[[]string](), "array"},
		{reflect.TypeFor[[2]int](), "array"},
		{reflect.TypeFor[[]byte](), "string"},
		{reflect.TypeFor[metav1.Time](), "string"},
		{reflect.TypeFor[*metav1.Time](), "string"},
		{reflect.TypeFor[metav1.MicroTime](), "string"},
		{reflect.TypeFor[metav1.Duration](), "string"},
		{reflect.TypeFor[json.RawMessage](), Any},
		{reflect.TypeFor[resource.Quantity](), Any},
		{reflect.TypeFor[intstr.IntOrString](), Any},
		{reflect.TypeFor[any](), Any},
		{reflect.TypeFor[chan int](), Any},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, TypeOf(tt.typ), tt.typ.String())
	}
}

func TestDeref(t *testing.T) {
	assert.Equal(t, reflect.TypeFor[int](), Deref(reflect.TypeFor[**int]()))
	assert.Equal(t, reflect.TypeFor[int](), Deref(reflect.TypeFor[int]()))
}

func TestKindOf(t *testing.T) {
	for v, want := range map[any]string{"s": "string", true: "boolean", int64(1): "number", 1.5: "number", nil: "null"} {
		assert.Equal(t, want, KindOf(v))
	}
	assert.Equal(t, "object", KindOf(map[string]any{}))
	assert.Equal(t, "array", KindOf([]any{}))
	assert.Equal(t, "Go type chan int", KindOf(make(chan int)))
}

func TestLookup(t *testing.T) {
	obj := map[string]any{
		"spec":   map[string]any{"host": "h", "empty": nil},
		"status": "broken",
	}
	tests := []struct {
		name    string
		path    []string
		want    any
		wantErr error
		msg     string
	}{
		{name: "whole object", path: nil, want: obj},
		{name: "leaf", path: []string{"spec", "host"}, want: "h"},
		{name: "absent", path: []string{"spec", "port"}, wantErr: ErrNotFound},
		{name: "null", path: []string{"spec", "empty"}, wantErr: ErrNotFound},
		{name: "parent not an object", path: []string{"status", "ready"}, wantErr: ErrWrongType,
			msg: `field has the wrong type: "status" is string, not an object`},
		{name: "deep parent not an object", path: []string{"spec", "host", "x", "y"}, wantErr: ErrWrongType,
			msg: `field has the wrong type: "spec.host" is string, not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Lookup(obj, tt.path)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				if tt.msg != "" {
					assert.EqualError(t, err, tt.msg)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
