// Package servicetest runs table-driven tests of a provider's services on the state-backed fake scopes of
// scope/scopetest. The services are reconcile.Service over scope.MachineScoper[T] or scope.ClusterScoper[T], and the
// tests need no gomock scope and no API server. A case gives the fake scope in its starting state, the setup of the
// service's dependencies, and the Outcome: what the reconciler will do with the call, in the terms of
// reconcile.Classify, which the reconcilers act on; the harness calls the service once and checks that, and what every
// provider must get right, besides the case's own assertions.
//
//	type fake = *scopetest.FakeMachineScope[*v1beta2.MyMachine]
//	newService := func(*testing.T) (reconcile.Service[services.S], *mycloud.Client) {
//		c := mycloud.New()
//		return services.VM(services.VMs(c)), c
//	}
//	servicetest.RunMachineCases(t, newService,
//		servicetest.MachineCase[*v1beta2.MyMachine, *mycloud.Client]{
//			Name:  "creates the VM and records it in spec.providerID at once",
//			Scope: myMachine(),
//			Want:  servicetest.Outcome{Result: step.Result{Done: true}},
//			Check: func(t *testing.T, s fake, c *mycloud.Client) {
//				assert.Equal(t, 1, c.Count())
//				assert.Equal(t, "mycloud://vm-1", s.Object.Spec.ProviderID)
//				require.Len(t, s.Checkpoints(), 1)
//				assert.Equal(t, "mycloud://vm-1", s.Checkpoints()[0].Object.Spec.ProviderID, "the checkpoint is spec.providerID")
//				assert.True(t, s.Object.IsProvisioned())
//				assert.Equal(t, "10.0.0.1", s.Object.Status.Addresses[0].Address)
//				assert.Equal(t, 1, s.BootstrapReads)
//			},
//		},
//	)
//
// This is the first case of TestVM in doc_example_test.go: the README's provider (internal/docstest/myprovider),
// its VM service on an in-memory cloud, whose VMs mycloud.Client counts.
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
//     end and a '/' or ':'). So "mycloud://" + res.ID after ensure.Exists, which checkpoints the ID it
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
