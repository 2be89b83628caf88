// Package providertest is the test harness a Cluster API infrastructure provider runs in its own CI. It
// gives, at every level of the test pyramid, the tests every provider writes again by hand: a real API
// server, service tests on a mocked scope, the idempotency scenarios of each cloud resource, contract
// conformance, and a whole-cluster lifecycle with a leak check. It does not import sigs.k8s.io/cluster-api:
// core objects are unstructured, in either core API version.
//
// # A real API server
//
// Main starts kube-apiserver and etcd (built by hack/envtest-binaries.sh, or KUBEBUILDER_ASSETS) with the
// provider's CRDs and the Cluster API CRDs: those of the sigs.k8s.io/cluster-api module in the provider's
// build list when there is one, else capkit's minimal Cluster and Machine CRDs:
//
//	var env *testenv.Environment
//
//	func TestMain(m *testing.M) {
//		testenv.Main(m, &env, testenv.WithCRDPaths("../config/crd/bases"))
//	}
//
// # Service tests on a mocked scope
//
// A provider's services depend on scope.ClusterScoper or scope.MachineScoper, not on a client. A
// ServiceCase gives the scope's starting state (ScopeState: contract fields, tracked resource IDs,
// conditions, facts about the Cluster and Machine, bootstrap data), the calls specific to the case, and the
// Outcome: result, error class and reason, the state afterwards and the number of checkpoints. The harness
// wires every getter and setter of the go.uber.org/mock scope mock to the state, so a case only states what
// is particular to it; the service's own dependencies (typically mocks.MockResource of its cloud resources)
// come from the constructor and reach Expect as deps:
//
//	providertest.RunMachineServiceCases(t, newVMService,
//		providertest.MachineCase[*mocks.MockResource[vmSpec]]{
//			Name:  "creates the VM and records it",
//			Given: providertest.ScopeState{ClusterInfrastructureProvisioned: true, BootstrapDataSecretName: "m", BootstrapData: data},
//			Expect: func(_ *mocks.MockMachineScoper, vms *mocks.MockResource[vmSpec]) {
//				vms.EXPECT().Validate(gomock.Any()).Return(nil)
//				vms.EXPECT().FindByTags(gomock.Any(), gomock.Any()).Return("", false, nil)
//				vms.EXPECT().Create(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return("vm-1", nil)
//			},
//			Want: providertest.Outcome{
//				Result:      reconcile.Result{Done: true},
//				State:       func(s *providertest.ScopeState) { s.ResourceIDs["vm"] = "vm-1"; s.Provisioned = true },
//				Checkpoints: 1,
//			},
//		})
//
// Outcome.State edits a copy of the starting state; nil means the service must change nothing, so a case
// that forgets a side effect fails. A case fails too when the bootstrap data shows in an error, a result
// message or a condition.
//
// # Standard scenarios for each cloud resource
//
// RunEnsureScenarios runs, against the provider's reconcile.Resource on a fresh CloudFixture (a fake or
// sandbox cloud), the scenarios in which providers create duplicates or leak: create when absent, no create
// when the tracked ID exists, adoption by tags after clusterctl move, no duplicate after a crash between the
// create and the write of its ID or after a lost create response (also with an eventually consistent tag
// search), out-of-band deletion, idempotent delete that tolerates NotFound, deletion of a resource whose ID
// was never recorded, and invalid parameters rejected before any cloud call. Tracker models a scope's
// persisted and in-memory IDs for them, and for the provider's own tests.
//
// # Contract conformance
//
// AssertCRDConformance checks generated CRDs, AssertTypeConformance the Go API types before any CRD is
// generated, AssertObjectConformance a reconciled object, AssertBootstrapSecretConformance a bootstrap
// Secret; each lists every violation of the contract on its own line of the test output.
//
// # Lifecycle and leak check
//
// Lifecycle creates a Cluster, its InfraCluster, Machines with bootstrap Secrets and InfraMachines, waits
// until all are provisioned, deletes them and asks the provider's cloud, through a LeakChecker, what is
// left. With PlayCAPI it does Cluster API's minimal part itself (owner references, Cluster and Machine
// status, providerID, deletion order), for envtest without Cluster API's controllers; without, it leaves
// that to the real controllers (the test/ module).
//
// # Builders and assertions
//
// NewCluster, NewMachine and NewBootstrapSecret build core objects in either core API version (e.g.
// spec.infrastructureRef as {apiGroup, kind, name} in v1beta2 and {apiVersion, kind, name, namespace} in
// v1beta1). AssertCondition, AssertProvisioned, EventuallyProvisioned and EventuallyCondition read contract
// fields at the path of the version in use and print the object's conditions when they fail. Every
// assertion takes a TestingT and returns whether it passed, testify-style.
package providertest
