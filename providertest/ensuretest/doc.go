// Package ensuretest checks a provider's ensure.Resource against the scenarios in which providers create duplicate
// cloud resources or leak them. It also models a scope's checkpoints for such tests.
//
// RunScenarios runs, against the provider's Resource on a fresh CloudFixture (a fake or sandbox cloud) for
// each scenario: create when absent, no create when the tracked ID exists, adoption by tags after
// clusterctl move, no duplicate after a crash between the create and the write of its ID or after a lost
// create response (also with an eventually consistent tag search), out-of-band deletion, idempotent delete
// that tolerates NotFound, deletion of a resource whose ID was never recorded, and invalid parameters
// rejected before any cloud call:
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
// Some scenarios need more of the fixture: the eventually consistent search needs CloudFixture.LagSearch,
// the update scenarios a Resource that implements ensure.Updater (and CloudFixture.Drift), the pending
// scenario CloudFixture.MakePending. A scenario the fixture cannot run gets no subtest, so it never shows as
// PASS; RunScenarios logs once which scenarios were not run and what each needs:
//
//	7 of the 17 ensure scenarios were not run (set ResourceUnderTest.RequireAll to fail instead):
//		not run: NoDuplicateAfterCrashBeforeRecordWithSearchLag (needs CloudFixture.LagSearch)
//		...
//
// A provider that wants every scenario to run sets ResourceUnderTest.RequireAll: then the same list fails
// the test.
//
// The scenarios judge a Resource's errors as the reconcilers do, by reconcile.Classify: throttled
// (step.Throttled, retried after the cloud's hint), terminal (step.Terminal, when retrying cannot
// help, not retried until the object changes) or transient (anything else, retried with backoff). A lost
// create response or a failed update must be retried, so the scenarios fail when the Resource makes it
// terminal; an out-of-band deletion with OutOfBandDelete ReportTerminal must be terminal.
//
// The scenarios track IDs with scopetest.Tracker, an in-memory scope.ResourceTracker that keeps apart the IDs held
// in memory and those persisted by PatchNow, so that a test models a crash (Restart) or clusterctl move (Moved)
// between two reconciles (before v0.2.0 it was scopetest.Tracker).
package ensuretest
