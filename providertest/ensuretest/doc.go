// Package ensuretest checks a provider's ensure.Resource against the scenarios in which providers create duplicate
// cloud resources or leak them. It also models a scope's checkpoints for such tests.
//
// RunScenarios runs, against the provider's Resource on a fresh CloudFixture (a fake or sandbox cloud) for
// each scenario: create when absent, no create when the tracked ID exists, adoption by tags after
// clusterctl move, no duplicate after a crash between the create and the write of its ID or after a lost
// create response (also with an eventually consistent tag search), out-of-band deletion, idempotent delete
// that tolerates NotFound, deletion of a resource whose ID was never recorded, and invalid parameters
// rejected before any cloud call; and, for the clouds they are about, asynchronous creates (no worker held, a
// crash or a delete while the operation runs, a failed operation) and what the Resource declares of its cloud
// (ensure.Guarantees: no second create while a search without idempotent creates lags, a recovery through an
// idempotent create reported as an adoption):
//
//	func TestNetworkResource(t *testing.T) {
//		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.NetworkSpec, *cloud.Network]{
//			Key:             "network",
//			ValidSpec:       cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"},
//			InvalidSpec:     cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.1/16"},
//			OutOfBandDelete: ensuretest.ReportTerminal, // memcloud refuses the token of a deleted network
//			Options:         []ensure.Option{ensure.WithTags(map[string]string{"capkit.io/cluster": "default/demo"})},
//			New: func(t testing.TB) ensuretest.CloudFixture[cloud.NetworkSpec, *cloud.Network] {
//				c := memcloudtest.NewCloud(t)
//				return ensuretest.CloudFixture[cloud.NetworkSpec, *cloud.Network]{
//					Resource:        services.NewResources(c).Networks,
//					Count:           func() int { return c.Count(cloud.KindNetwork) },
//					DeleteOutOfBand: func(id string) error { return c.DeleteNetwork(context.Background(), id) },
//				}
//			},
//		})
//	}
//
// This is memcloud's network resource (doc_example_test.go): cloud.NetworkSpec is the spec the provider
// wants and *cloud.Network what the cloud reports, the S and O of ensure.Resource[S, O].
// examples/memcloud/services/scenarios_test.go runs the scenarios for every resource kind of memcloud.
//
// Each scenario reconciles as a controller does: it calls ensure.Exists or ensure.Deleted again while the step
// is not done, after the step's RequeueAfter, and after the cloud's hint while the cloud throttles
// (step.Throttled), and fails, quoting the last result, when a step is not done after 100 reconciles; a
// resource that is recorded and waits only for itself (its ensure.PendingReporter reports it pending, as a Pod
// waits for a node) counts as done. With CloudFixture.Advance the time is a fake clock that ensure reads too
// (ensure.WithClock) and that Advance moves the fixture's cloud along with, so that a search lag of minutes
// passes at once. Without it, a Resource that declares ensure.Guarantees is reconciled in real time, again at
// most 10 ms after a step, so it must declare short lags; one that declares none, as every Resource written
// before they existed, runs ensure on a fake clock (its cloud in real time), so that the careful default of
// ensure (ensure.DefaultSearchLag) passes at once. A crash is the failure of the first patch after the create
// call (the one that would have persisted the resource's ID, or the operation of an asynchronous create),
// never of the patch that notes the create before it is called.
//
// Some scenarios need more of the fixture: the eventually consistent search needs CloudFixture.LagSearch,
// the update scenarios a Resource that implements ensure.Updater (and CloudFixture.Drift), the pending
// scenario CloudFixture.MakePending, the failed operation CloudFixture.FailNextOperation. Others are about
// another kind of cloud: the asynchronous scenarios run for a fixture with CloudFixture.AsyncCreate, and the
// scenarios of declared guarantees for a Resource that declares them (ensure.Declarer). A scenario the
// fixture cannot run gets no subtest, so it never shows as PASS; RunScenarios logs once which scenarios were
// not run and what each needs:
//
//	12 of the 23 ensure scenarios were not run (with ResourceUnderTest.RequireAll, those that need a hook fail instead):
//		not run: NoDuplicateAfterCrashBeforeRecordWithSearchLag (needs CloudFixture.LagSearch)
//		...
//		not run: AsyncCreateHoldsNoWorker (needs an asynchronous create: CloudFixture.AsyncCreate)
//		...
//
// A provider that wants every scenario its cloud can run to run sets ResourceUnderTest.RequireAll: then those
// that need a hook or an interface fail the test.
//
// The scenarios judge a Resource's errors as the reconcilers do, by reconcile.Classify: throttled
// (step.Throttled, retried after the cloud's hint), terminal (step.Terminal, when retrying cannot
// help, not retried until the object changes) or transient (anything else, retried with backoff). A lost
// create response or a failed update must be retried, so the scenarios fail when the Resource makes it
// terminal; an out-of-band deletion with OutOfBandDelete ReportTerminal must be terminal.
//
// The scenarios track IDs with scopetest.Tracker, an in-memory scope.ResourceTracker and scope.PendingTracker
// that keeps apart the IDs and notes held in memory and those persisted by PatchNow, so that a test models a
// crash (Restart) or clusterctl move (Moved) between two reconciles (before v0.2.0 it was ensuretest.Tracker).
package ensuretest
