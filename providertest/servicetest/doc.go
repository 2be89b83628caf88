// Package servicetest runs table-driven tests of a provider's services (reconcile.Service over
// scope.MachineScoper[T] or scope.ClusterScoper[T]) on the state-backed fake scopes of scope/scopetest: no
// gomock scope, no API server. A case gives the fake scope in its starting state, the setup of the
// service's dependencies, and the Outcome: what the reconciler will do with the call, in the terms of
// reconcile.Classify, which the reconcilers act on; the harness calls the service once and checks that, and
// what every provider must get right, besides the case's own assertions.
//
//	func TestInstance(t *testing.T) {
//		newService := func(t *testing.T) (reconcile.Service[scope.MachineScoper[*v1beta2.MyMachine]], *fakecloud.Cloud) {
//			c := fakecloud.New()
//			return &Instance{Cloud: c}, c
//		}
//		servicetest.RunMachineCases(t, newService, []servicetest.MachineCase[*v1beta2.MyMachine, *fakecloud.Cloud]{
//			{
//				Name:  "creates the VM and sets the provider ID",
//				Scope: machine("m-0"), // a new *scopetest.FakeMachineScope[*v1beta2.MyMachine]
//				Want:  servicetest.Outcome{Result: reconcile.Result{Done: true}},
//				Check: func(t *testing.T, s *scopetest.FakeMachineScope[*v1beta2.MyMachine], c *fakecloud.Cloud) {
//					assert.Equal(t, 1, c.Count())
//					assert.True(t, s.Object.IsProvisioned())
//				},
//			},
//			{
//				Name:  "a quota error is terminal",
//				Scope: machine("m-0"),
//				Setup: func(_ *testing.T, _ *scopetest.FakeMachineScope[*v1beta2.MyMachine], c *fakecloud.Cloud) { c.FailNext(fakecloud.ErrQuota) },
//				Want:  servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: "QuotaExceeded"},
//			},
//			{
//				Name:  "a throttled call is requeued after the cloud's hint",
//				Scope: machine("m-0"),
//				Setup: func(_ *testing.T, _ *scopetest.FakeMachineScope[*v1beta2.MyMachine], c *fakecloud.Cloud) { c.ThrottleNext(2 * time.Second) },
//				Want:  servicetest.Outcome{Class: reconcile.ClassThrottled, Reason: conditions.ReasonThrottled, RequeueAfter: 2 * time.Second},
//			},
//		}...)
//	}
//
// The checks every case gets:
//
//   - the Result, compared in full, and the reconcile.Class that reconcile.Classify gives the call
//     (ClassDone or ClassInProgress when the case gives none and the call returns no error;
//     ClassThrottled, ClassTerminal, ClassRefused or ClassTransient for an error: a service says "not done
//     yet" with a Result, never with an error), with the condition reason and the requeue delay the
//     reconciler will use, the error's chain (ErrorIs) and message (ErrorContains), when the case gives
//     them;
//   - the bootstrap data of a FakeMachineScope (BootstrapValue) appears in no error, result message or
//     condition message: secrets never go there;
//   - after a successful call, every resource ID the call recorded is persisted by a checkpoint
//     (FakeObject.PersistedResourceID): a crash right after the call must not lose a cloud resource;
//   - after a successful call, a provider ID the call set is persisted by the last checkpoint (PatchNow or
//     PatchSpecNow, as scope.ProviderIDTracker does), or names a persisted resource ID: an ID of the
//     object's resource-ID map as the API server holds it after the call (at the call's last PatchNow, or
//     before the call when it made none) appears in the provider ID as a whole segment (between its start or
//     end and a '/' or ':'). So "mycloud://" + res.ID after reconcile.Ensure, which checkpoints the ID it
//     records, needs no checkpoint of its own: a crash loses nothing the next reconcile cannot rebuild. A
//     provider ID that is the only record of a cloud resource fails;
//   - with Outcome.Unchanged, the infra object is unchanged and was not checkpointed.
//
// Every failure the harness reports starts with the case's name, quoted, and its file:line is the line
// of the test that calls RunMachineCases or RunClusterCases.
//
// A case runs once on its own fake, so a test that calls several services on one object (the steps of a
// reconciler in order) uses the fakes of scope/scopetest directly.
package servicetest
