// Package reconcile has the generic reconcilers a Cluster API infrastructure provider plugs its services
// into, and Ensure, the idempotent lifecycle of one cloud resource.
//
// # Reconcilers
//
// NewClusterReconciler and NewMachineReconciler take the provider's type (through a newObject func) and its
// services as ordered Steps over the interfaces the services implement: Step[scope.ClusterScoper[T]] and
// Step[scope.MachineScoper[T]], so a service plugs in as it is. The reconciler owns the concrete scope and
// its lifecycle (the summary, Close); services never see it. Each request goes through, in this order: fetch (not found: done); owner not
// set yet: wait without error; paused (Cluster spec.paused or the cluster.x-k8s.io/paused annotation):
// Paused=True and stop; externally managed InfraCluster: skip; finalizer and ownership key added and
// persisted in one patch before any cloud call; for machines, wait until the Cluster's infrastructure is
// provisioned and the bootstrap data secret is set; the steps in order, each writing its condition
// (<Name>Ready); Close, which writes Ready and patches only what changed. Deletion runs the steps' Delete in
// reverse order and removes the finalizer once every step reports Done.
//
// # Results and errors
//
// A step returns a Result (Done, RequeueAfter, Reason, Message) and an error, with one meaning each:
//
//   - "not done yet" (a resource still being created, a dependency not ready) is a Result with Done false:
//     the step condition is False with Reason and Message, and the object is looked at again after
//     RequeueAfter, without error and without backoff;
//   - a terminal error (Terminal(reason, err), or controller-runtime's reconcile.TerminalError(err), whose
//     reason is ReasonTerminalError) writes the step condition False with the reason and is not retried
//     until the object changes; IsTerminal recognises both, wrapped or not;
//   - every other error writes ReasonTransientError and is returned to controller-runtime, which retries
//     with exponential backoff.
//
// Events are emitted for state changes when WithEventRecorder is given. Only the reconcilers log.
//
// # Secrets
//
// Each reconcile has its own redact.Redactor, in its context (redact.FromContext). The scope registers the
// bootstrap data it reads with it, and the identity binder (WithIdentity) the credentials of the cluster's
// identity. Everything that leaves the reconcile passes through it, so that a cloud error that echoes the
// user data (whole, in base64, truncated, or one line of it) or a credential shows redact.Placeholder
// instead:
//
//   - condition messages: the ones the reconciler writes (masked before they are cut to 1024 bytes), and
//     every condition the scope persists (PatchNow, Close), a service's own and the Ready summary included;
//   - events: the reconciler's and those of Eventf (ContextWithEvents masks every note);
//   - log lines: the logger in the context, which steps and Ensure use, masks messages and values;
//   - the error Reconcile returns, which controller-runtime logs (its chain is kept, so terminal and
//     throttled errors keep their class).
//
// What the Redactor masks and what it cannot is listed in package redact. A secret the provider reads itself
// is masked only once the provider registers it (redact.FromContext(ctx).Add). Secrets are read with a
// context whose logger discards everything (redact.QuietContext): client-go logs response bodies through the
// context's logger.
//
// # Ensure
//
// A Resource[S, O] is one kind of cloud resource: S the spec the provider wants, O what the cloud reports of
// one that exists. Ensure(ctx, scope, key, resource, spec) reads the tracked ID (one Get) and, when it is
// gone, adopts a resource tagged with the owner's ownership key and the resource key, else creates it with
// those tags and an idempotency token derived from both, then records the ID and persists it at once. A
// crash between create and record never makes a second resource: the next Ensure adopts it by its tags or
// gets it back from the cloud by its token. Ensure returns the observation, so a service never reads the
// resource twice in one reconcile, and a step Result: Done, or not done while the resource is pending
// (PendingReporter), after an in-place update of drift (Updater, ReasonDriftCorrected), or when the drift
// cannot be updated in place (ReasonNeedsReplacement, reported and never repaired). The spec is Given, or
// Lazy: computed only when a create or an update needs it, so a steady-state reconcile reads no bootstrap
// data. EnsureDeleted deletes the tracked resource and every resource still carrying the ownership tags (an
// orphan of a lost checkpoint, duplicates of a cloud without idempotency tokens), searching again after
// each delete; it is Done only when a search finds none, waits for slow deletes, and deletes at most
// MaxTaggedDeletes tagged resources per call.
//
// # Identities
//
// With WithIdentity a delete needs the identity as much as a create, except for an object that provably never
// ran a step: StepsStartedAnnotation, written in the finalizer's patch once the identity is bound, and what
// the object records (resource IDs, provider ID, provisioned, step conditions) prove that a step may have run.
//
// # Wiring
//
// SetupWithManager names each controller after its infra kind in lower case ("foomachine"). controller-runtime
// refuses a second controller of the same name in one process: a process that starts two managers (a test
// suite, most often) creates them with ctrl.Options{Controller: config.Controller{SkipNameValidation:
// ptr.To(true)}}. capkit's metrics are registered once per process, and shared by every manager in it.
//
// SetupWithManager watches the infra kind, core Clusters and Machines (unstructured, no Cluster API import)
// with the owner mappers ClusterToInfraCluster, MachineToInfraMachine and ClusterToInfraMachines, and the
// predicates ResourceNotExternallyManaged and ResourceHasFilterLabel. The machine reconciler's scopes read
// bootstrap data Secrets through the manager's uncached API reader, so that no provider starts an informer
// on every Secret of the cluster by accident.
//
// The reconcilers read the owner Cluster and Machine as unstructured objects. controller-runtime's
// manager client reads unstructured objects from the API server unless told otherwise, so create the
// manager with client.Options{Cache: &client.CacheOptions{Unstructured: true}}: they are then served by
// the informers the watches above start (in examples/memcloud this took the API requests per machine from
// 10 to 6).
package reconcile
