package contract

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func obj(m map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: m} }

// fromJSON decodes JSON as the API machinery does, so that numbers are int64.
func fromJSON(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	require.NoError(t, utiljson.Unmarshal([]byte(s), &m))
	return &unstructured.Unstructured{Object: m}
}

func TestPathString(t *testing.T) {
	assert.Equal(t, "status.initialization.provisioned", Path{"status", "initialization", "provisioned"}.String())
	assert.Equal(t, "", Path{}.String())
	assert.Equal(t, []string{"a", "b"}, []string(NewField[bool]("a", "b").Path()))
}

func TestFieldGet(t *testing.T) {
	u := fromJSON(t, `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"n"},
		"spec":{"b":true,"s":"x","i":443,"f":1.5,"whole":2.0,"ep":{"host":"h","port":6443},"badEp":{"host":5},
		"list":[{"name":"a"}],"m":{"k":"v"},"str":"notAMap","nul":null}}`)
	tests := []struct {
		name    string
		get     func() (any, error)
		want    any
		wantErr error
	}{
		{"bool", func() (any, error) { return NewField[bool]("spec", "b").Get(u) }, true, nil},
		{"string", func() (any, error) { return NewField[string]("spec", "s").Get(u) }, "x", nil},
		{"int64", func() (any, error) { return NewField[int64]("spec", "i").Get(u) }, int64(443), nil},
		{"int32 via JSON", func() (any, error) { return NewField[int32]("spec", "i").Get(u) }, int32(443), nil},
		{"float64", func() (any, error) { return NewField[float64]("spec", "f").Get(u) }, 1.5, nil},
		{"struct", func() (any, error) { return NewField[APIEndpoint]("spec", "ep").Get(u) }, APIEndpoint{Host: "h", Port: 6443}, nil},
		{"slice of structs", func() (any, error) { return NewField[[]FailureDomain]("spec", "list").Get(u) }, []FailureDomain{{Name: "a"}}, nil},
		{"map", func() (any, error) { return NewField[map[string]string]("spec", "m").Get(u) }, map[string]string{"k": "v"}, nil},
		{"absent leaf", func() (any, error) { return NewField[bool]("spec", "nope").Get(u) }, false, ErrFieldNotFound},
		{"absent parent", func() (any, error) { return NewField[bool]("status", "ready").Get(u) }, false, ErrFieldNotFound},
		{"null is absent", func() (any, error) { return NewField[string]("spec", "nul").Get(u) }, "", ErrFieldNotFound},
		{"string for bool", func() (any, error) { return NewField[bool]("spec", "s").Get(u) }, false, ErrFieldType},
		{"number for string", func() (any, error) { return NewField[string]("spec", "i").Get(u) }, "", ErrFieldType},
		{"fraction for int", func() (any, error) { return NewField[int64]("spec", "f").Get(u) }, int64(0), ErrFieldType},
		{"object for list", func() (any, error) { return NewField[[]FailureDomain]("spec", "m").Get(u) }, []FailureDomain(nil), ErrFieldType},
		{"wrong nested field", func() (any, error) { return NewField[APIEndpoint]("spec", "badEp").Get(u) }, APIEndpoint{}, ErrFieldType},
		{"parent is not an object", func() (any, error) { return NewField[bool]("spec", "str", "x").Get(u) }, false, ErrFieldType},
		{"nil object", func() (any, error) { return NewField[bool]("spec", "b").Get(nil) }, false, ErrFieldNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.get()
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				if !errors.Is(tt.wantErr, ErrFieldNotFound) {
					assert.NotErrorIs(t, err, ErrFieldNotFound)
				}
			} else {
				require.NoError(t, err)
			}
			if tt.wantErr == nil {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestFieldGetErrorNamesPathAndTypesNotValue(t *testing.T) {
	u := fromJSON(t, `{"spec":{"secretish":"hunter2","ep":{"port":"hunter3"},"m":{"k":"hunter5"},"s":"hunter4"}}`)
	_, err := NewField[bool]("spec", "secretish").Get(u)
	require.ErrorIs(t, err, ErrFieldType)
	assert.Contains(t, err.Error(), `"spec.secretish"`)
	assert.Contains(t, err.Error(), "want boolean, got string")
	assert.NotContains(t, err.Error(), "hunter2")

	_, err = NewField[APIEndpoint]("spec", "ep").Get(u)
	require.ErrorIs(t, err, ErrFieldType)
	assert.Contains(t, err.Error(), `want integer at "port", got string`)
	assert.NotContains(t, err.Error(), "hunter3")

	_, err = NewField[map[string]bool]("spec", "m").Get(u)
	require.ErrorIs(t, err, ErrFieldType)
	assert.Contains(t, err.Error(), `want boolean, got string`)
	assert.NotContains(t, err.Error(), "hunter5")

	_, err = NewField[string]("spec", "s", "deeper").Get(u)
	require.ErrorIs(t, err, ErrFieldType)
	assert.Contains(t, err.Error(), `"spec.s" is string, not an object`)
	assert.NotContains(t, err.Error(), "hunter4")
}

func TestFieldGetReturnsACopy(t *testing.T) {
	u := fromJSON(t, `{"spec":{"m":{"k":"v"},"list":[{"name":"a"}]}}`)
	m, err := NewField[map[string]any]("spec", "m").Get(u)
	require.NoError(t, err)
	m["k"] = "changed"
	l, err := NewField[[]FailureDomain]("spec", "list").Get(u)
	require.NoError(t, err)
	l[0].Name = "changed"
	assert.Equal(t, map[string]any{"k": "v"}, u.Object["spec"].(map[string]any)["m"])
	assert.Equal(t, "a", u.Object["spec"].(map[string]any)["list"].([]any)[0].(map[string]any)["name"])
}

func TestFieldGetAcceptsGoLiteralNumbers(t *testing.T) {
	// Objects built in Go code often hold int, not int64; Get must still work and not panic.
	u := obj(map[string]any{"spec": map[string]any{"port": 6443, "ep": map[string]any{"host": "h", "port": 6443}}})
	p, err := NewField[int64]("spec", "port").Get(u)
	require.NoError(t, err)
	assert.Equal(t, int64(6443), p)
	ep, err := NewField[APIEndpoint]("spec", "ep").Get(u)
	require.NoError(t, err)
	assert.Equal(t, APIEndpoint{Host: "h", Port: 6443}, ep)
	_, err = NewField[string]("spec", "bad").Get(obj(map[string]any{"spec": map[string]any{"bad": make(chan int)}}))
	require.ErrorIs(t, err, ErrFieldType)
}

func TestFieldHas(t *testing.T) {
	u := fromJSON(t, `{"spec":{"a":1,"n":null}}`)
	assert.True(t, NewField[bool]("spec", "a").Has(u), "Has ignores the type")
	assert.False(t, NewField[bool]("spec", "n").Has(u))
	assert.False(t, NewField[bool]("spec", "b").Has(u))
	assert.False(t, NewField[bool]("spec", "a").Has(nil))
}

func TestFieldSetRoundTrip(t *testing.T) {
	cp := true
	tests := []struct {
		name string
		run  func(u *unstructured.Unstructured) (any, any, error)
	}{
		{"bool", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[bool]("status", "ready"), true)
		}},
		{"string", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[string]("spec", "providerID"), "mem://x")
		}},
		{"int64", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[int64]("spec", "n"), int64(7))
		}},
		{"int32", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[int32]("spec", "n"), int32(7))
		}},
		{"int", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[int]("spec", "n"), 7)
		}},
		{"float", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[float64]("spec", "f"), 0.25)
		}},
		{"struct", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[APIEndpoint]("spec", "controlPlaneEndpoint"), APIEndpoint{Host: "h", Port: 6443})
		}},
		{"slice", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[[]FailureDomain]("status", "failureDomains"), []FailureDomain{{Name: "a", ControlPlane: &cp, Attributes: map[string]string{"k": "v"}}})
		}},
		{"named string", func(u *unstructured.Unstructured) (any, any, error) {
			return roundTrip(u, NewField[MachineAddressType]("status", "t"), MachineInternalIP)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := obj(nil)
			want, got, err := tt.run(u)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			// The written object must be valid unstructured content: DeepCopy panics on Go types JSON lacks.
			assert.NotPanics(t, func() { u.DeepCopy() })
			_, err = u.MarshalJSON()
			require.NoError(t, err)
		})
	}
}

func roundTrip[T any](u *unstructured.Unstructured, f Field[T], v T) (any, any, error) {
	if err := f.Set(u, v); err != nil {
		return v, nil, err
	}
	got, err := f.Get(u)
	return v, got, err
}

func TestFieldSetWritesJSONShapes(t *testing.T) {
	u := obj(map[string]any{"spec": map[string]any{"keep": "me"}})
	require.NoError(t, NewField[APIEndpoint]("spec", "controlPlaneEndpoint").Set(u, APIEndpoint{Host: "h", Port: 6443}))
	require.NoError(t, NewField[int32]("spec", "replicas").Set(u, 3))
	assert.Equal(t, map[string]any{
		"keep":                 "me",
		"controlPlaneEndpoint": map[string]any{"host": "h", "port": int64(6443)},
		"replicas":             int64(3),
	}, u.Object["spec"])
}

func TestFieldSetNilRemoves(t *testing.T) {
	u := fromJSON(t, `{"status":{"failureDomains":[{"name":"a"}],"conditions":[]}}`)
	require.NoError(t, NewField[[]FailureDomain]("status", "failureDomains").Set(u, nil))
	_, found := u.Object["status"].(map[string]any)["failureDomains"]
	assert.False(t, found, "nil slice removes the field instead of writing null")
	require.NoError(t, NewField[*bool]("status", "x").Set(u, nil))
	require.NoError(t, NewField[[]FailureDomain]("status", "empty").Set(u, []FailureDomain{}))
	assert.Equal(t, []any{}, u.Object["status"].(map[string]any)["empty"], "an empty slice stays an empty list")
}

func TestFieldSetErrors(t *testing.T) {
	u := fromJSON(t, `{"status":"oops"}`)
	err := NewField[bool]("status", "ready").Set(u, true)
	require.ErrorIs(t, err, ErrFieldType)
	assert.Contains(t, err.Error(), `"status" is string, not an object`)
	assert.Equal(t, "oops", u.Object["status"], "a failed Set leaves the object alone")

	require.Error(t, NewField[bool]("status").Set(nil, true))
	require.Error(t, NewField[bool]().Set(obj(nil), true))
	require.ErrorIs(t, NewField[float64]("spec", "f").Set(obj(nil), math.NaN()), ErrFieldType)
	require.ErrorIs(t, NewField[any]("spec", "f").Set(obj(nil), func() {}), ErrFieldType)
	require.ErrorIs(t, NewField[json.RawMessage]("spec", "f").Set(obj(nil), json.RawMessage("{")), ErrFieldType)
}

func TestFieldSetOnNilObjectMap(t *testing.T) {
	u := &unstructured.Unstructured{}
	require.NoError(t, NewField[bool]("status", "ready").Set(u, true))
	assert.Equal(t, map[string]any{"status": map[string]any{"ready": true}}, u.Object)
	// A null parent is replaced by an object.
	u = fromJSON(t, `{"status":null}`)
	require.NoError(t, NewField[bool]("status", "ready").Set(u, true))
	assert.Equal(t, true, u.Object["status"].(map[string]any)["ready"])
}

func TestFieldDelete(t *testing.T) {
	u := fromJSON(t, `{"status":{"ready":true,"other":1}}`)
	f := NewField[bool]("status", "ready")
	f.Delete(u)
	_, err := f.Get(u)
	require.ErrorIs(t, err, ErrFieldNotFound)
	assert.Equal(t, map[string]any{"other": int64(1)}, u.Object["status"])
	assert.NotPanics(t, func() {
		f.Delete(u)
		f.Delete(nil)
		f.Delete(&unstructured.Unstructured{})
		NewField[bool]("status", "other", "deeper").Delete(u)
	})
}

func TestNormalizeNumbers(t *testing.T) {
	assert.Equal(t, map[string]any{"a": int64(2), "b": []any{int64(3), 0.5}}, normalizeNumbers(map[string]any{"a": 2.0, "b": []any{3.0, 0.5}}))
	assert.Equal(t, 1e300, normalizeNumbers(1e300), "numbers outside int64 stay float64")
}

func TestJSONKindOfType(t *testing.T) {
	assert.Equal(t, "a value", jsonKindOfType(nil))
	assert.Equal(t, "chan int", jsonKindOfType(reflect.TypeFor[chan int]()))
	assert.Equal(t, "string", jsonKindOfType(reflect.TypeFor[*metav1.Time]()))
	assert.Equal(t, "object", jsonKindOfType(reflect.TypeFor[APIEndpoint]()))
}

func BenchmarkFieldGet(b *testing.B) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec":   map[string]any{"controlPlaneEndpoint": map[string]any{"host": "h", "port": int64(6443)}},
		"status": map[string]any{"initialization": map[string]any{"provisioned": true}},
	}}
	b.Run("bool", func(b *testing.B) {
		f := InfraCluster(V1Beta2).Provisioned()
		for b.Loop() {
			if _, err := f.Get(u); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("struct", func(b *testing.B) {
		f := InfraCluster(V1Beta2).ControlPlaneEndpoint()
		for b.Loop() {
			if _, err := f.Get(u); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The APIEndpoint fast path decodes exactly what encoding/json decodes, and refuses what it refuses.
func TestAPIEndpointFastPathAgreesWithJSON(t *testing.T) {
	f := InfraCluster(V1Beta2).ControlPlaneEndpoint()
	for _, v := range []map[string]any{
		{"host": "h", "port": int64(6443)},
		{"host": "h", "port": float64(6443)},
		{"host": "h", "port": 6443.5},
		{"host": "h", "port": int64(1 << 40)},
		{"host": "h", "port": int64(-1)},
		{"host": int64(5), "port": int64(1)},
		{"host": "h", "port": "1"},
		{"host": "h", "extra": "x"},
		{"host": nil},
		{},
	} {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"controlPlaneEndpoint": v}}}
		got, err := f.Get(u)
		var want APIEndpoint
		b, merr := json.Marshal(v)
		require.NoError(t, merr)
		wantErr := json.Unmarshal(b, &want)
		assert.Equal(t, wantErr != nil, err != nil, "%v: error %v, encoding/json %v", v, err, wantErr)
		if wantErr == nil {
			assert.Equal(t, want, got, "%v", v)
		} else {
			assert.ErrorIs(t, err, ErrFieldType, "%v", v)
		}
	}
}

func TestLookupReportsAbsenceWithoutError(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"ready": "yes"}}}
	_, found, err := NewField[bool]("status", "initialization", "provisioned").Lookup(u)
	assert.False(t, found)
	require.NoError(t, err)
	_, found, err = NewField[bool]("status", "ready").Lookup(u)
	assert.False(t, found)
	require.ErrorIs(t, err, ErrFieldType, "a present field of the wrong type is an error")
	_, found, err = NewField[bool]("status", "ready", "x").Lookup(u)
	assert.False(t, found)
	require.ErrorIs(t, err, ErrFieldType, "a parent that is not an object is an error")
	_, found, err = NewField[bool]("a").Lookup(nil)
	assert.False(t, found)
	require.NoError(t, err)
}
