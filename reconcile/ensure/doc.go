// Package ensure is the idempotent lifecycle of one cloud resource: Exists creates, adopts, updates or waits for
// it, Deleted removes it and every orphan carrying its ownership tags.
//
// A Resource[S, O] is one kind of cloud resource: S the spec the provider wants, O what the cloud reports of
// one that exists. Exists(ctx, scope, key, resource, spec) reads the tracked ID (one Get) and, when it is
// gone, adopts a resource tagged with the owner's ownership key and the resource key, else creates it with
// those tags and an idempotency token derived from both, then records the ID and persists it at once. A
// crash between create and record never makes a second resource, and a delete then never leaks one, as far as
// what the Resource declares of its cloud (Guarantees) is true: the next Exists adopts it by its tags, gets it back
// from the cloud by its token or name, or waits until the search would list it, and Deleted looks for it as long.
// The table of docs/services-and-ensure.md says what holds and what it costs under each declaration; a Resource
// that declares nothing gets the careful behaviour. A Create may return Accepted(op): the operation is checkpointed
// and polled on later reconciles (OperationPoller), and no worker waits for it. Exists returns the observation, so a service never reads the
// resource twice in one reconcile, and a step.Result: Done, or not done while the resource is pending
// (PendingReporter), after an in-place update of drift (Updater, conditions.ReasonDriftCorrected), or when the
// drift cannot be updated in place (conditions.ReasonNeedsReplacement, reported and never repaired). The spec is
// Given, or Lazy: computed only when a create or an update needs it, so a steady-state reconcile reads no
// bootstrap data. Deleted deletes the tracked resource and every resource still carrying the ownership tags (an
// orphan of a lost checkpoint, duplicates of a cloud without idempotency tokens), searching again after each
// delete; it is Done only when a search finds none, waits for slow deletes, and deletes at most
// MaxTaggedDeletes tagged resources per call. Both wait for a pending or slow resource with the reconcile's
// poll interval (step.Env.PollInterval: the reconciler's reconcile.WithPollInterval), or a resource's own
// (WithPollInterval).
//
// Clouds differ in what they promise, and a Resource says what its cloud does (Declarer, or
// ResourceFuncs.Guarantees): whether a repeated create returns the first resource (IdempotentByToken,
// IdempotentByName) and whether a new resource is listed by the tag search at once (ImmediateSearch) or up to
// SearchLag later. Exists and Deleted use exactly what is declared; a Resource that declares nothing is treated
// with care: before a create, Exists notes it on the infra object (scope.PendingTracker) and persists the note, no
// second create is made on a cloud without idempotent creates while the search may still miss the first
// (DefaultSearchLag), and Deleted does not conclude "gone" before that either. A create the cloud runs as an
// operation returns Accepted(op) from Create: the handle is checkpointed in the note, the worker is released, and
// later reconciles poll it (OperationPoller) until it ends: 1 s after it started, then after waits that double
// with its age, up to the poll interval. A Resource whose cloud can find an operation by the create's idempotency
// token (OperationFinder) lets Exists and Deleted find the operation of a noted create whose handle was lost (a
// crash between the create call and its checkpoint), and read it instead of waiting out the search lag.
//
// Every cloud call waits for the reconcile's rate limiter (step.Env.Wait), is counted in capkit's metrics, and a
// call the cloud throttles with a short hint (step.Throttled) is retried in place a few times. A Resource's function
// that makes more than one cloud call (a Create that creates, then reads) makes the others through Call, which does
// the same.
//
// NewResource builds a Resource from functions (ResourceFuncs), a PendingReporter or Updater only when
// given their functions; GoneIfNotFound, FindOldest and IgnoreErrors turn a cloud SDK's get, list and delete
// calls into the behaviour Resource asks for (NotFound means gone, the oldest tagged resource is adopted,
// deleting what is gone succeeds).
//
// Before v0.2.0 this package was part of package reconcile (reconcile.Ensure, reconcile.EnsureDeleted, …); the
// old names are deprecated forms of these.
package ensure
