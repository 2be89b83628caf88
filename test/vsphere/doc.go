// Package vsphere runs capkit's vSphere example provider (examples/vspherecloud) as a process beside the real
// Cluster API managers, on envtest's API server and govmomi's vCenter simulator, and measures it beside Cluster API
// Provider vSphere (CAPV) on the same simulator, the same managers and the same fleet.
//
// TestVSphereCloudWithRealClusterAPI, the crash tests and TestMoveVSphereCloudClusterWithClusterctl (clusterctl move of
// a cluster to a second management cluster on the same simulator) run in make test. BenchmarkVSphereSideBySide (make
// bench-vsphere, which builds CAPV v1.14.0's manager from the Go module proxy) provisions and deletes fleets of 10 and
// 100 single-machine clusters with each provider in turn and runs the same crash tests on both. Each provider's vCenter
// requests are counted at the simulator (vspheretest.Endpoint) and its Kubernetes API requests at a proxy in front of
// the API server (capienv.StartProxy), so that neither provider's own client is trusted to count; CPU time and peak
// memory come from /proc.
package vsphere
