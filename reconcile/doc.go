// Package reconcile has the generic reconcilers a Cluster API infrastructure provider plugs its services into.
//
// The services' cloud calls go through package ensure (the lifecycle of one cloud resource); what a step returns
// and the environment it runs in are in package step, which both share.
//
// # Reconcilers
//
// NewClusterReconcilerFor, NewMachineReconcilerFor and NewMachinePoolReconcilerFor take the provider's type
// (through an empty object, as controller-runtime's builder.For does) and its services as ordered Steps over the interfaces the services implement:
// Step[scope.ClusterScoper[T]], Step[scope.MachineScoper[T]], so a service plugs in as it is. The type is
// constrained by the type contract of its kind (contract.InfraClusterObject, contract.InfraMachineObject,
// contract.InfraMachinePoolObject): a type that lacks an accessor does not compile, and the compiler names the
// method. A provider whose types do not implement the accessors (one still on contract v1beta1, say) uses
// NewUnstructuredClusterReconciler and NewUnstructuredMachineReconciler, which read and write unstructured
// objects at the paths of their contract version. The reconciler owns the concrete scope and its lifecycle
// (the summary, Close); services never see it. Each request goes through, in this order: fetch (not found:
// done); owner not set yet: wait without error; paused (Cluster spec.paused or the cluster.x-k8s.io/paused annotation):
// Paused=True and stop; externally managed InfraCluster: skip; finalizer and ownership key added and
// persisted in one patch before any cloud call; for machines, wait until the Cluster's infrastructure is
// provisioned and the bootstrap data secret is set; the steps in order, each writing its condition
// (<Name>Ready); Close, which writes Ready and patches only what changed. Deletion runs the steps' Delete in
// reverse order and removes the finalizer once every step reports Done.
//
// # Results and errors
//
// A step returns a Result (Done, RequeueAfter, Reason, Message) and an error, and Classify turns them into
// the one thing the reconcilers act on, a Classification: its Class, the reason of the condition written,
// when the object is looked at again, and the error returned to controller-runtime. The classes, told
// apart in this order (an error first: the Result that comes with it is ignored):
//
//   - ClassThrottled: the error has a step.ThrottledError in its chain (step.Throttled(err, retryAfter), what a
//     Resource returns for HTTP 429 or the cloud's throttling code). Not a failure: the condition gets
//     conditions.ReasonThrottled, no error is returned, and the object is looked at again after the cloud's
//     hint or a bounded backoff (ThrottleBackoffBase to ThrottleBackoffMax), whichever is longer, with
//     jitter;
//   - ClassTerminal: a terminal error (step.Terminal(reason, err), or controller-runtime's
//     step.TerminalError(err), whose reason is conditions.ReasonTerminalError), wrapped or not: the
//     condition gets the reason, a Warning event says why, and nothing is retried until the object
//     changes;
//   - ClassRefused: an identity.RefusedError, the refusal of the cluster's identity (WithIdentities writes it
//     into ConditionIdentityReady before any step runs): the condition gets the refusal's reason, a
//     Warning event says why, no error is returned, and the object is looked at again when the identity
//     or its Secret changes, or after DefaultIdentityRecheck;
//   - ClassTransient: every other error writes conditions.ReasonTransientError and is returned to
//     controller-runtime, which retries with exponential backoff;
//   - ClassInProgress: "not done yet" (a resource still being created, a dependency not ready) is a step.Result
//     with Done false and no error: the step condition is False with Reason (conditions.ReasonInProgress
//     when empty) and Message, and the object is looked at again after RequeueAfter (WithPollInterval's
//     delay, step.DefaultPollInterval, when zero), without error and without backoff;
//   - ClassDone: the step condition becomes True with conditions.ReasonReady and the next step runs.
//
// While deleting, a step not done or failed is recorded in the Deleting condition (conditions.ReasonDeleting
// while not done). step.IsThrottled, step.IsTerminal and identity.IsRefused report whether an error is of one class;
// the details are in the error types (errors.As on step.ThrottledError, step.TerminalError, identity.RefusedError)
// and in Classify. Before the steps, the reconcilers wait without a step outcome: for the owner, and for
// machines for the Cluster's infrastructure and the bootstrap data, written into the first step's condition
// (conditions.ReasonWaitingForClusterInfrastructure, conditions.ReasonWaitingForBootstrapData) and resumed by
// a watch event. Every reason capkit writes is a constant of package conditions. providertest/servicetest
// checks a service's calls against Classify, so a service's test asserts what the reconciler will do.
//
// # The environment of a reconcile
//
// Each reconcile runs its steps in an Env (step.EnvFrom(ctx)), which the reconciler builds from its options: the
// object and its event recorder (WithEventRecorder; SetupWithManager takes the manager's when none was
// given), the rate limiter (WithRateLimiter) and the account whose bucket the cloud calls use (the bound
// identity's name with WithIdentities), the poll interval of the steps and of ensure (WithPollInterval), and
// how many changes the reconcile made in the cloud (which the throttling backoff reads). ensure and step.Eventf
// read it; a service reads it for a cloud call of its own (Env.Wait). A service test builds one with NewEnv
// and step.ContextWithEnv. Outside a reconcile (no Env) there is no rate limit, Ensure polls every
// step.DefaultPollInterval, and step.Eventf logs the event through the context's logger instead of dropping it: an
// event always has somewhere to go. Only the reconcilers log otherwise.
//
// SetupWithManager runs up to WithMaxConcurrentReconciles reconciles of its kind at once (default 1), from
// controller-runtime's plain work queue with a per-object retry backoff of 5 ms doubling to 1,000 s, unless the
// manager's options choose a queue (config.Controller.UsePriorityQueue): controller-runtime v0.24.1's priority
// queue, its default, can keep a controller with two workers or more from ever stopping
// (kubernetes-sigs/controller-runtime#3538).
//
// # Secrets
//
// Each reconcile has its own redact.Redactor, in its context (redact.FromContext). The scope registers the
// bootstrap data it reads with it, and the identity binder (WithIdentities) the credentials of the cluster's
// identity. Everything that leaves the reconcile passes through it, so that a cloud error that echoes the
// user data (whole, in base64, truncated, or one line of it) or a credential shows redact.Placeholder
// instead:
//
//   - condition messages: the ones the reconciler writes (masked before they are cut to 1024 bytes), and
//     every condition the scope persists (PatchNow, Close), a service's own and the Ready summary included;
//   - events: the reconciler's and those of step.Eventf (every note is masked, recorded or logged);
//   - log lines: the logger in the context, which steps and Ensure use, masks messages and values;
//   - the error Reconcile returns, which controller-runtime logs (its chain is kept, so terminal and
//     throttled errors keep their class).
//
// What the Redactor masks and what it cannot is listed in package redact. A secret the provider reads itself
// is masked only once the provider registers it (redact.FromContext(ctx).Add). Secrets are read with a
// context whose logger discards everything (redact.QuietContext): client-go logs response bodies through the
// context's logger.
//
// # Identities
//
// With WithIdentities a delete needs the identity as much as a create, except for an object that provably never
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
// predicates ResourceNotExternallyManaged, ResourceHasFilterLabel, ClusterChanged (Cluster API's status
// updates of a Cluster, conditions and counters, do not reconcile every machine of it) and MachineChanged (nor do
// those of a Machine reconcile its InfraMachine). The machine and
// machine pool reconcilers index their kind by cluster name in the manager's cache (IndexClusterName), so
// that mapping a Cluster to its machines reads an index, not every machine of the namespace, and starts no
// second informer. The machine reconciler's scopes read
// bootstrap data Secrets through the manager's uncached API reader, so that no provider starts an informer
// on every Secret of the cluster by accident.
//
// The reconcilers read the owner Cluster and Machine as unstructured objects. controller-runtime's
// manager client reads unstructured objects from the API server unless told otherwise, so create the
// manager with client.Options{Cache: &client.CacheOptions{Unstructured: true}}: they are then served by
// the informers the watches above start (in examples/memcloud this took the API requests per machine from
// 10 to 6).
package reconcile
