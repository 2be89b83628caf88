package patch

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
)

type treeNode struct {
	Name     string
	Children []*treeNode
	Next     *treeNode
	hidden   int
	Fn       func()
	Any      any
	Arr      [2]float64
	Ch       chan int
}

// samplePod is a typical API object: labels, annotations, quantities, times, pointers, nested slices.
func samplePod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ResourceVersion: "7",
			Labels:            map[string]string{"a": "1", "capkit.io/ownership-key": "k"},
			Annotations:       map[string]string{"note": "x"},
			CreationTimestamp: metav1.Unix(1700000000, 0), Finalizers: []string{"f/one"}},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "img",
			Args: []string{"--v=2"}, Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}},
			TerminationGracePeriodSeconds: ptr.To[int64](30)},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
				LastTransitionTime: metav1.Unix(1700000100, 0)}}},
	}
}

func TestEqualTreeAgreesWithDeepEqual(t *testing.T) {
	nan := math.NaN()
	fn := func() {}
	ch := make(chan int)
	shared := &treeNode{Name: "s"}
	cases := []struct {
		name string
		a, b any
	}{
		{"nil and nil", nil, nil},
		{"nil and value", nil, 1},
		{"different types", int32(1), int64(1)},
		{"equal pods", samplePod(), samplePod()},
		{"label value differs", samplePod(), func() any { p := samplePod(); p.Labels["a"] = "2"; return p }()},
		{"label added", samplePod(), func() any { p := samplePod(); p.Labels["b"] = "1"; return p }()},
		{"nil and empty labels", &metav1.ObjectMeta{}, &metav1.ObjectMeta{Labels: map[string]string{}}},
		{"nil and empty slice", []string(nil), []string{}},
		{"quantity differs", samplePod(), func() any {
			p := samplePod()
			p.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("3")
			return p
		}()},
		{"time differs", samplePod(), func() any { p := samplePod(); p.CreationTimestamp = metav1.Unix(1, 0); return p }()},
		{"pointer target differs", samplePod(), func() any {
			p := samplePod()
			p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](31)
			return p
		}()},
		{"nil pointer", samplePod(), func() any { p := samplePod(); p.Spec.TerminationGracePeriodSeconds = nil; return p }()},
		{"condition appended", samplePod(), func() any {
			p := samplePod()
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: "X"})
			return p
		}()},
		{"unexported field differs", treeNode{hidden: 1}, treeNode{hidden: 2}},
		{"same shared pointer", treeNode{Next: shared}, treeNode{Next: shared}},
		{"non-nil funcs", treeNode{Fn: fn}, treeNode{Fn: fn}},
		{"nil funcs", treeNode{}, treeNode{}},
		{"NaN", treeNode{Arr: [2]float64{nan}}, treeNode{Arr: [2]float64{nan}}},
		{"same channel", treeNode{Ch: ch}, treeNode{Ch: ch}},
		{"different channels", treeNode{Ch: ch}, treeNode{Ch: make(chan int)}},
		{"interfaces of different types", treeNode{Any: 1}, treeNode{Any: "1"}},
		{"interfaces equal", treeNode{Any: []int{1}}, treeNode{Any: []int{1}}},
		{"unstructured equal", unstructuredSample(), unstructuredSample()},
		{"unstructured number type", unstructuredSample(), func() any {
			u := unstructuredSample()
			u.Object["spec"].(map[string]any)["replicas"] = float64(3)
			return u
		}()},
		{"condition time in equal locations at different addresses", cond(time.FixedZone("X", 3600)), cond(time.FixedZone("X", 3600))},
		{"condition time in different locations", cond(time.UTC), cond(time.FixedZone("X", 3600))},
		{"condition message differs", cond(time.UTC), func() any { c := cond(time.UTC); c[0].Message = "m"; return c }()},
		{"deletion timestamp set", samplePod(), func() any { p := samplePod(); p.DeletionTimestamp = ptr.To(metav1.Unix(2, 0)); return p }()},
		{"owner reference differs", func() any {
			p := samplePod()
			p.OwnerReferences = []metav1.OwnerReference{{Name: "a", Controller: ptr.To(true)}}
			return p
		}(), func() any {
			p := samplePod()
			p.OwnerReferences = []metav1.OwnerReference{{Name: "a", Controller: ptr.To(false)}}
			return p
		}()},
		{"metadata by value (not addressable)", metav1.ObjectMeta{Name: "a"}, metav1.ObjectMeta{Name: "a"}},
		{"deeper than the depth limit, equal", chain(maxTreeDepth * 2), chain(maxTreeDepth * 2)},
		{"deeper than the depth limit, different", chain(maxTreeDepth * 2), chain(maxTreeDepth*2 + 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, reflect.DeepEqual(tc.a, tc.b), equalTree(tc.a, tc.b))
			assert.Equal(t, reflect.DeepEqual(tc.b, tc.a), equalTree(tc.b, tc.a))
		})
	}
}

func TestEqualTreeHandlesCycles(t *testing.T) {
	a, b := &treeNode{Name: "a"}, &treeNode{Name: "a"}
	a.Next, b.Next = a, b
	require.True(t, equalTree(a, b), "a cycle falls back to reflect.DeepEqual")
	b.Name = "b"
	require.False(t, equalTree(a, b))
}

// TestEqualTreeFindsEveryMutation changes one random leaf of a pod at a time and compares the verdicts.
func TestEqualTreeFindsEveryMutation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	mutations := []func(p *corev1.Pod){
		func(p *corev1.Pod) { p.Labels["a"] += "x" },
		func(p *corev1.Pod) { delete(p.Annotations, "note") },
		func(p *corev1.Pod) { p.Finalizers[0] = "f/two" },
		func(p *corev1.Pod) { p.Spec.Containers[0].Args = append(p.Spec.Containers[0].Args, "-x") },
		func(p *corev1.Pod) { p.Status.PodIPs[0].IP = "10.0.0.2" },
		func(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse },
		func(p *corev1.Pod) { *p.Spec.TerminationGracePeriodSeconds = 0 },
		func(p *corev1.Pod) {}, // no change
	}
	for range 200 {
		a, b := samplePod(), samplePod()
		mutations[r.IntN(len(mutations))](b)
		require.Equal(t, reflect.DeepEqual(a, b), equalTree(a, b))
	}
}

// cond is a condition list whose time is in loc (a fresh *time.Location each call for FixedZone).
func cond(loc *time.Location) []metav1.Condition {
	return []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "R",
		LastTransitionTime: metav1.NewTime(time.Unix(1700000000, 0).In(loc))}}
}

func unstructuredSample() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X",
		"spec": map[string]any{"replicas": int64(3), "names": []any{"a", "b"}}}}
}

func chain(n int) *treeNode {
	head := &treeNode{}
	for n := n; n > 0; n-- {
		head = &treeNode{Name: "n", Next: head}
	}
	return head
}

func BenchmarkEqual(b *testing.B) {
	x, y := samplePod(), samplePod()
	b.Run("reflect.DeepEqual", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !reflect.DeepEqual(x, y) {
				b.Fatal("not equal")
			}
		}
	})
	b.Run("equalTree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !equalTree(x, y) {
				b.Fatal("not equal")
			}
		}
	})
}

// kinds has a field of every kind the plans handle without reflection, and some they hand to it.
type kinds struct {
	I    int
	I64  int64
	I32  int32
	U8   uint8
	U16  uint16
	F    float64
	B    bool
	S    string
	P    *kinds
	L    []kinds
	M    map[string]string
	MS   map[string]kinds
	T    time.Time
	Arr  [2]int
	Any  any
	priv string
}

func TestEqualTreePlansAgreeWithDeepEqual(t *testing.T) {
	base := func() *kinds {
		return &kinds{I: 1, I64: 2, I32: 3, U8: 4, U16: 5, F: 1.5, B: true, S: "s",
			P: &kinds{S: "inner"}, L: []kinds{{S: "a"}, {S: "b", L: []kinds{}}}, M: map[string]string{"k": "v"},
			MS: map[string]kinds{"x": {I: 1}}, T: time.Unix(5, 0).UTC(), Arr: [2]int{1, 2}, Any: []string{"x"}, priv: "p"}
	}
	mutations := map[string]func(k *kinds){
		"none": func(*kinds) {}, "int": func(k *kinds) { k.I++ }, "int64": func(k *kinds) { k.I64++ },
		"int32": func(k *kinds) { k.I32++ }, "uint8": func(k *kinds) { k.U8++ }, "uint16": func(k *kinds) { k.U16++ },
		"float": func(k *kinds) { k.F = 2 }, "NaN": func(k *kinds) { k.F = math.NaN() }, "bool": func(k *kinds) { k.B = false },
		"string": func(k *kinds) { k.S = "t" }, "nil pointer": func(k *kinds) { k.P = nil },
		"pointer target": func(k *kinds) { k.P.S = "x" }, "nested empty slice to nil": func(k *kinds) { k.L[1].L = nil },
		"slice element": func(k *kinds) { k.L[0].S = "z" }, "slice length": func(k *kinds) { k.L = k.L[:1] },
		"map value": func(k *kinds) { k.M["k"] = "w" }, "map of structs": func(k *kinds) { k.MS["x"] = kinds{I: 2} },
		"time location": func(k *kinds) { k.T = k.T.In(time.FixedZone("X", 0)) }, "array": func(k *kinds) { k.Arr[1] = 3 },
		"interface": func(k *kinds) { k.Any = []string{"y"} }, "unexported": func(k *kinds) { k.priv = "q" },
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			a, b := base(), base()
			mutate(b)
			assert.Equal(t, reflect.DeepEqual(a, b), equalTree(a, b))
			assert.Equal(t, reflect.DeepEqual(*a, *b), equalTree(*a, *b), "by value")
		})
	}
}

func TestEqualTreeConcurrentFirstUse(t *testing.T) {
	type fresh struct {
		A []string
		B *fresh
	}
	done := make(chan bool)
	for range 8 {
		go func() {
			done <- equalTree(&fresh{A: []string{"a"}, B: &fresh{}}, &fresh{A: []string{"a"}, B: &fresh{}})
		}()
	}
	for range 8 {
		assert.True(t, <-done)
	}
}
