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
// "no change" and never more than Cluster API's helper. BenchmarkPatch/<case>/<impl> measures ns/op and
// allocs/op on controller-runtime's fake client, every implementation of a case one after the other.
//
// # Fleet
//
// BenchmarkFleet/<n> runs one manager in-process on envtest with memcloud's capkit controllers and a floor
// controller (the least any provider must do, floor_test.go), provisions a fleet of n MemMachines for each,
// and reports capkit's API writes, API requests, milliseconds and live-heap growth per machine, their ratios
// to the floor's, and how capkit's time ratio grows from the first size (overhead-growth). It then restarts
// the manager on the provisioned fleets and reports the start-up (startup-*). It does all its work once per
// iteration, so run it with -benchtime=1x; CAPKIT_FLEET_SIZES sets the fleets (make bench-fleet: 100 and
// 1,000; make bench-fleet-10k: 1,000 and 10,000) and CAPKIT_FLEET_PROFILE a folder for CPU and allocation
// profiles of the timed parts.
//
// TestNoOpReconcileCost asserts what a reconcile of a provisioned machine that has nothing to do costs: no
// API request of any kind, one cloud read per resource the machine tracks, and no informer on Secrets.
// TestStartupWithProvisionedFleet asserts what a new manager costs on 100 provisioned machines: no API
// request but its informers' lists and watches and the REST mapper's discovery, one cloud read per resource,
// no cloud write.
package bench
