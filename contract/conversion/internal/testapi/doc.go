// Package testapi holds, in its sub-packages, the API types of the test provider of package conversion's tests. The
// provider moves its FooMachine (an InfraMachine) and FooCluster (an InfraCluster) from the v1beta1 contract (package
// v1beta1, the spoke) to the v1beta2 contract (package v1beta2, the hub), converted with package conversion's helpers,
// and has a FooMachine that serves both contracts from one version (package dual). Their tests run them through
// conversiontest.RoundTrip.
package testapi
