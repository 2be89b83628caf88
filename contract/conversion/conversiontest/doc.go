// Package conversiontest tests a provider's conversions between the API versions of one kind. RoundTrip fills random
// objects of a spoke version (a conversion.Convertible) and of the hub (a conversion.Hub), converts each to the other
// version and back, and fails with the diff of the first object that came back different.
//
// A provider calls it once per spoke in a unit test, here with fooFuncs, its own fill functions:
//
//	conversiontest.RoundTrip[v1beta2.FooMachine, v1beta1.FooMachine](t, conversiontest.WithFuncs(fooFuncs...))
//
// The objects are filled with sigs.k8s.io/randfill, TypeMeta left empty (conversions do not carry it). Values
// the API server would refuse and the conversions need not keep (an empty condition type, a pointer to "" where
// nil means the same) are shaped by WithFuncs, randfill's custom fill functions.
package conversiontest
