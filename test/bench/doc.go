// Package bench measures capkit's scope patching against what Cluster API providers use today,
// sigs.k8s.io/cluster-api/util/patch.Helper, and the cost of provisioning a fleet of machines with
// memcloud's controllers. It holds tests and benchmarks only; RESULTS.md has the figures and the commands
// that produce them.
//
// # Patching: the same objects, the same changes
//
// Both sides patch a memcloud MemMachine (examples/memcloud/api/v1beta2) from the same starting state with
// the same change, in four cases: no change, status only (addresses and the provisioned flag), conditions
// only (InstanceReady flips to True), and spec plus status (providerID, provisioned and the condition).
// Cluster API's side creates patch.NewHelper, mutates the object and calls Helper.Patch; capkit's side
// creates a scope.MachineScope as a reconcile does, mutates through the scope's setters and calls PatchNow.
// The capkit-discover variant creates the scope without scope.WithContractVersion, so that it reads the
// CRD to find the contract version.
//
// TestRequestsPerPatch counts the HTTP requests each side sends to envtest's API server (a counting
// round-tripper under the client: reads count as well as writes) and asserts that capkit sends none for
// "no change" and never more than Cluster API's helper. BenchmarkPatch/<impl>/<case> measures ns/op and
// allocs/op on controller-runtime's fake client.
//
// # Fleet
//
// BenchmarkFleet/<n> runs memcloud's manager in-process on envtest (package memcloudtest), provisions n
// MemMachines of one cluster and reports API writes, API requests and milliseconds per machine. It does all
// its work once per iteration, so run it with -benchtime=1x.
package bench
