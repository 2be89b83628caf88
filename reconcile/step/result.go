package step

import "time"

// Result is what a service reports after one attempt to reconcile or delete its part of the infrastructure.
type Result struct {
	// Done reports that the step reached its desired state (Reconcile) or that all its cloud resources are
	// gone (Delete). When true the step condition becomes True (Reconcile) and the next step runs. When
	// false the reconciler stops at this step, writes the step condition False with Reason and Message,
	// and requeues after RequeueAfter (the poll interval when zero).
	Done bool
	// RequeueAfter is when to reconcile again. With Done it asks for a periodic re-check (the shortest of
	// all steps wins); without Done it overrides the poll interval.
	RequeueAfter time.Duration
	// Reason is the CamelCase reason of the step condition while not Done (conditions.ReasonInProgress when empty).
	Reason string
	// Message is the message of the step condition while not Done; never put secrets in it.
	Message string
}

// DefaultPollInterval is the poll interval when none is set: how long a reconciler waits before it looks again
// at a step that is not Done, and how often ensure looks at a resource that is pending. A reconciler's
// reconcile.WithPollInterval (the manager's --poll-interval flag) sets another.
const DefaultPollInterval = 10 * time.Second
