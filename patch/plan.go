package patch

import (
	"reflect"
	"sync"
	"time"
	"unsafe"
)

// A plan compares two values of one type, addressed by pointers, with reflect.DeepEqual's rules; ok is false
// when the values nest deeper than maxTreeDepth (a cycle), and the caller decides another way. Plans are
// built once per type from its layout, so that a no-op check costs a field walk without reflection: the
// no-op reconcile of every provider pays for it.
type plan func(a, b unsafe.Pointer, depth int) (eq, ok bool)

// plans caches the plan of every type compared so far: reflect.Type → *planHolder.
var plans sync.Map

type planHolder struct {
	once sync.Once
	p    plan
}

var goTimeType = reflect.TypeFor[time.Time]()

// planFor returns the plan of t, building it on first use. Building never calls planFor: a plan resolves
// the plans of its fields and elements on its first call, so recursive types need no special case.
func planFor(t reflect.Type) plan {
	v, ok := plans.Load(t)
	if !ok {
		v, _ = plans.LoadOrStore(t, &planHolder{})
	}
	h := v.(*planHolder)
	h.once.Do(func() { h.p = buildPlan(t) })
	return h.p
}

func buildPlan(t reflect.Type) plan {
	if t == goTimeType {
		return func(a, b unsafe.Pointer, _ int) (bool, bool) {
			ta, tb := (*time.Time)(a), (*time.Time)(b)
			//nolint:staticcheck // the same representation, not the same instant: a changed location is a change
			return *ta == *tb || reflect.DeepEqual(*ta, *tb), true
		}
	}
	if t == stringMapType { // labels, annotations, resource IDs
		return func(a, b unsafe.Pointer, _ int) (bool, bool) {
			return equalStringMaps(*(*map[string]string)(a), *(*map[string]string)(b)), true
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(a, b unsafe.Pointer, _ int) (bool, bool) { return *(*string)(a) == *(*string)(b), true }
	case reflect.Bool:
		return func(a, b unsafe.Pointer, _ int) (bool, bool) { return *(*bool)(a) == *(*bool)(b), true }
	case reflect.Int:
		return func(a, b unsafe.Pointer, _ int) (bool, bool) { return *(*int)(a) == *(*int)(b), true }
	case reflect.Int64:
		return func(a, b unsafe.Pointer, _ int) (bool, bool) { return *(*int64)(a) == *(*int64)(b), true }
	case reflect.Int32:
		return func(a, b unsafe.Pointer, _ int) (bool, bool) { return *(*int32)(a) == *(*int32)(b), true }
	case reflect.Uint8:
		return func(a, b unsafe.Pointer, _ int) (bool, bool) { return *(*uint8)(a) == *(*uint8)(b), true }
	case reflect.Float64:
		return func(a, b unsafe.Pointer, _ int) (bool, bool) { return *(*float64)(a) == *(*float64)(b), true }
	case reflect.Pointer:
		return pointerPlan(t)
	case reflect.Struct:
		return structPlan(t)
	case reflect.Slice:
		return slicePlan(t)
	}
	// Maps, interfaces and every other kind go through the reflective walk.
	return func(a, b unsafe.Pointer, depth int) (bool, bool) {
		return equalValue(reflect.NewAt(t, a).Elem(), reflect.NewAt(t, b).Elem(), depth)
	}
}

func pointerPlan(t reflect.Type) plan {
	var elem plan
	var once sync.Once
	return func(a, b unsafe.Pointer, depth int) (bool, bool) {
		pa, pb := *(*unsafe.Pointer)(a), *(*unsafe.Pointer)(b)
		switch {
		case pa == nil || pb == nil:
			return pa == pb, true
		case pa == pb:
			return true, true
		case depth > maxTreeDepth:
			return false, false
		}
		once.Do(func() { elem = planFor(t.Elem()) })
		return elem(pa, pb, depth+1)
	}
}

type fieldPlan struct {
	offset uintptr
	eq     plan
}

func structPlan(t reflect.Type) plan {
	var fields []fieldPlan
	var once sync.Once
	return func(a, b unsafe.Pointer, depth int) (bool, bool) {
		once.Do(func() {
			fields = make([]fieldPlan, t.NumField())
			for i := range fields {
				f := t.Field(i)
				fields[i] = fieldPlan{offset: f.Offset, eq: planFor(f.Type)}
			}
		})
		for _, f := range fields {
			if eq, ok := f.eq(unsafe.Add(a, f.offset), unsafe.Add(b, f.offset), depth+1); !eq || !ok {
				return eq, ok
			}
		}
		return true, true
	}
}

// sliceHeader is the layout of every slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func slicePlan(t reflect.Type) plan {
	size := t.Elem().Size()
	var elem plan
	var once sync.Once
	return func(a, b unsafe.Pointer, depth int) (bool, bool) {
		sa, sb := (*sliceHeader)(a), (*sliceHeader)(b)
		switch {
		case (sa.data == nil) != (sb.data == nil) || sa.len != sb.len:
			return false, true
		case sa.len == 0 || sa.data == sb.data:
			return true, true
		case depth > maxTreeDepth:
			return false, false
		}
		once.Do(func() { elem = planFor(t.Elem()) })
		for i := range sa.len {
			off := uintptr(i) * size
			if eq, ok := elem(unsafe.Add(sa.data, off), unsafe.Add(sb.data, off), depth+1); !eq || !ok {
				return eq, ok
			}
		}
		return true, true
	}
}
