// Package scaletest runs the standard scaling scenarios against a provider's machine pool service. The service is a
// reconcile.Service over scope.MachinePoolScoper[T], run on its real cloud (or an in-memory one) and a fake scope:
//
//   - ScalesUpAndDown: the pool goes 0 → 5 → 2 → 0 replicas. After each step converges, spec.providerIDList is
//     exactly the live instances of the pool, status.replicas their number, and no more instances were ever
//     created than the sizes asked for (5).
//   - ScalesUnderFaults: the same with the cloud failing a mutating call before every reconcile (after the
//     change, when the fixture can): a failed call is retried, and still no extra instance is created and none
//     is left behind.
//   - DeletesEverything: after scaling up, Delete converges and leaves no live instance.
//
// A provider calls RunScalingScenarios from a test with a function that builds a fresh PoolFixture per
// scenario: the pool service on a fresh cloud, a fake scope of the pool (scopetest.FakeMachinePoolScope), and
// the cloud's live instances, the number of instances it created and its fault hook. TestInstanceGroupScalingScenarios
// in examples/memcloud/services/instancegroup_test.go does so for memcloud's instance groups.
package scaletest
