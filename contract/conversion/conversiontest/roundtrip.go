package conversiontest

import (
	"math/rand"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/diff"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
	"sigs.k8s.io/randfill"
)

// DefaultIterations is how many objects of each version RoundTrip converts when WithIterations is not given.
const DefaultIterations = 100

// MaxIterations is the most iterations RoundTrip accepts.
const MaxIterations = 100_000

// TestingT is the part of *testing.T that RoundTrip uses.
type TestingT interface {
	Helper()
	Errorf(format string, args ...any)
}

// Option configures RoundTrip.
type Option func(*options)

type options struct {
	iterations int
	seed       int64
	funcs      []any
}

// WithIterations sets how many objects of each version RoundTrip converts, from 1 to MaxIterations.
func WithIterations(n int) Option { return func(o *options) { o.iterations = n } }

// WithSeed sets the seed of the random objects, which a failure reports, so that a failure can be reproduced.
// Without it the seed is the current time.
func WithSeed(seed int64) Option { return func(o *options) { o.seed = seed } }

// WithFuncs adds randfill custom fill functions, each a func(*T, randfill.Continue) for one type T, which
// fill T instead of randfill (see randfill.Filler.Funcs).
func WithFuncs(fns ...any) Option { return func(o *options) { o.funcs = append(o.funcs, fns...) } }

// RoundTrip converts random objects spoke → hub → spoke and hub → spoke → hub, and fails t, with the seed, the
// iteration and the diff, at the first conversion that returns an error, changes the object it converts, or
// gives back an object that is not equal (equality.Semantic: nil and empty maps and slices are equal) to the
// first. Hub and Spoke are the provider's struct types, e.g. RoundTrip[v1beta2.FooMachine, v1beta1.FooMachine].
func RoundTrip[Hub, Spoke any, H interface {
	*Hub
	conversion.Hub
}, S interface {
	*Spoke
	conversion.Convertible
}](t TestingT, opts ...Option) {
	t.Helper()
	o := options{iterations: DefaultIterations, seed: time.Now().UnixNano()}
	for _, opt := range opts {
		opt(&o)
	}
	if o.iterations < 1 || o.iterations > MaxIterations {
		t.Errorf("cannot run the round trip: %d iterations, want 1 to %d", o.iterations, MaxIterations)
		return
	}
	f := randfill.New().NilChance(0.2).NumElements(0, 3).RandSource(rand.NewSource(o.seed)).Funcs(o.funcs...)
	for i := range o.iterations {
		if !check(t, "spoke → hub → spoke", o.seed, i, fill(f, S(new(Spoke))), func() H { return H(new(Hub)) },
			func(s S, h H) error { return s.ConvertTo(h) }, func(h H, s S) error { return s.ConvertFrom(h) },
			func() S { return S(new(Spoke)) }) {
			return
		}
		if !check(t, "hub → spoke → hub", o.seed, i, fill(f, H(new(Hub))), func() S { return S(new(Spoke)) },
			func(h H, s S) error { return s.ConvertFrom(h) }, func(s S, h H) error { return s.ConvertTo(h) },
			func() H { return H(new(Hub)) }) {
			return
		}
	}
}

// fill fills obj and empties its TypeMeta.
func fill[T runtime.Object](f *randfill.Filler, obj T) T {
	f.Fill(obj)
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return obj
}

// check converts in to the other version with there and back with back, and reports whether all went well.
func check[A, B runtime.Object](t TestingT, name string, seed int64, i int, in A, newB func() B,
	there func(A, B) error, back func(B, A) error, newA func() A) bool {
	t.Helper()
	orig := in.DeepCopyObject()
	mid := newB()
	if err := there(in, mid); err != nil {
		t.Errorf("%s (seed %d, iteration %d): cannot convert there: %v", name, seed, i, err)
		return false
	}
	if !equality.Semantic.DeepEqual(orig, in) {
		t.Errorf("%s (seed %d, iteration %d): converting there changed the object converted (- before, + after):\n%s",
			name, seed, i, diff.Diff(orig, in))
		return false
	}
	out := newA()
	if err := back(mid, out); err != nil {
		t.Errorf("%s (seed %d, iteration %d): cannot convert back: %v", name, seed, i, err)
		return false
	}
	out.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	if !equality.Semantic.DeepEqual(orig, runtime.Object(out)) {
		t.Errorf("%s (seed %d, iteration %d): the object changed (- before, + after):\n%s", name, seed, i, diff.Diff(orig, out))
		return false
	}
	return true
}
