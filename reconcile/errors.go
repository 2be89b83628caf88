package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/reconcile/step"
)

// Class is what the reconcilers do with one call of a step's service, as Classify decides it from the
// Result and the error the service returned. It is the one flow-control model of capkit: the reconcilers
// act on it, and providertest/servicetest checks a service's calls against it. The zero Class is no class;
// Classify never returns it.
type Class int

// The classes of a step's outcome, in the order Classify tells them apart (an error first: its Result is
// ignored).
const (
	// ClassDone is a Result with Done and no error: the step condition becomes True with
	// conditions.ReasonReady (False with conditions.ReasonDeleting for a Delete: the step's resources are
	// gone) and the next step runs; a RequeueAfter asks for a periodic re-check, the shortest of all steps
	// wins.
	ClassDone Class = iota + 1
	// ClassInProgress is a Result without Done and no error, "not done yet": the reconciler stops at the
	// step, writes its condition False with the Result's Reason (conditions.ReasonInProgress when empty;
	// the Deleting condition with conditions.ReasonDeleting for a Delete) and Message, and looks again
	// after the Result's RequeueAfter (the reconciler's default when zero), without error and without
	// backoff.
	ClassInProgress
	// ClassThrottled is an error with a step.ThrottledError in its chain (step.Throttled): the cloud refused a call
	// for its rate limit. It is not a failure: the step condition gets conditions.ReasonThrottled, no error
	// goes to controller-runtime, and the object is looked at again after the cloud's hint or a backoff
	// that doubles while the object stays throttled without progress (ThrottleBackoffBase,
	// ThrottleBackoffMax), whichever is longer, plus up to 50% jitter.
	ClassThrottled
	// ClassTerminal is a terminal error (step.Terminal, or controller-runtime's step.TerminalError, wrapped
	// or not): retrying cannot help. The step condition gets the error's reason (step.TerminalError's Reason,
	// conditions.ReasonTerminalError for controller-runtime's) and a Warning event says why; no error goes
	// to controller-runtime, and nothing is retried until the object changes.
	ClassTerminal
	// ClassRefused is an error with an identity.RefusedError in its chain: the cluster's identity may not
	// be used. The condition gets the refusal's reason (a conditions.Reason… of identities) and message
	// and a Warning event says why; no error goes to controller-runtime, and the object is looked at again
	// when the identity or its Secret changes, or after DefaultIdentityRecheck. The reconcilers resolve
	// the identity before any step (WithIdentity) and write this into ConditionIdentityReady; a service
	// that resolves an identity of its own gets the same treatment in its step condition.
	ClassRefused
	// ClassTransient is any other error: the step condition gets conditions.ReasonTransientError and the
	// error's message, a Warning event is emitted, and the error is returned to controller-runtime, which
	// retries with exponential backoff.
	ClassTransient
)

// String returns the class's name without its prefix, e.g. "Throttled".
func (c Class) String() string {
	switch c {
	case ClassDone:
		return "Done"
	case ClassInProgress:
		return "InProgress"
	case ClassThrottled:
		return "Throttled"
	case ClassTerminal:
		return "Terminal"
	case ClassRefused:
		return "Refused"
	case ClassTransient:
		return "Transient"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Op is the call of a service a Result comes from: the conditions differ (a step's own condition while it
// reconciles, the Deleting condition while it deletes).
type Op int

const (
	// OpReconcile is a call of Service.Reconcile.
	OpReconcile Op = iota
	// OpDelete is a call of Service.Delete.
	OpDelete
)

// Classification is what the reconcilers do with one call of a step's service. Each field says what the
// reconciler does with it.
type Classification struct {
	// Class is the outcome.
	Class Class
	// Reason is the reason of the condition the reconciler writes: the step's own condition (or
	// ConditionIdentityReady for a refused identity), or the Deleting condition while a Delete is not
	// done or failed.
	Reason string
	// RequeueAfter is when the reconciler looks at the object again, zero for "on the next change" (or the
	// reconciler's resync): the Result's for ClassDone (a periodic re-check; none for a Delete), the
	// Result's or step.DefaultPollInterval for ClassInProgress, DefaultIdentityRecheck for ClassRefused, and
	// for ClassThrottled the least wait of a first throttled reconcile, the cloud's hint bounded by
	// ThrottleBackoffBase and ThrottleBackoffMax, to which the reconciler adds its backoff and jitter.
	RequeueAfter time.Duration
	// Err is the error the reconciler returns to controller-runtime, which retries it with backoff: the
	// service's error for ClassTransient, nil for every other class.
	Err error
}

// Classify returns what the reconcilers do with the Result and the error one call op of a step's service
// returned; the reconcilers act on nothing else. Its requeue delays are those of a reconciler with the
// default settings (step.DefaultPollInterval); WithPollInterval changes ClassInProgress's default.
func Classify(op Op, res step.Result, err error) Classification {
	return classify(op, res, err, step.DefaultPollInterval)
}

// classify is Classify with the requeue delay of a step not done that gives none.
func classify(op Op, res step.Result, err error, pollInterval time.Duration) Classification {
	if err != nil {
		var throttled *step.ThrottledError
		var refused *identity.RefusedError
		switch {
		case errors.As(err, &throttled):
			return Classification{Class: ClassThrottled, Reason: conditions.ReasonThrottled,
				RequeueAfter: min(max(throttled.RetryAfter, ThrottleBackoffBase), ThrottleBackoffMax)}
		case step.IsTerminal(err):
			return Classification{Class: ClassTerminal, Reason: step.TerminalReason(err)}
		case errors.As(err, &refused):
			return Classification{Class: ClassRefused, Reason: refused.Reason, RequeueAfter: DefaultIdentityRecheck}
		}
		return Classification{Class: ClassTransient, Reason: conditions.ReasonTransientError, Err: err}
	}
	if res.Done {
		if op == OpDelete {
			return Classification{Class: ClassDone, Reason: conditions.ReasonDeleting}
		}
		return Classification{Class: ClassDone, Reason: conditions.ReasonReady, RequeueAfter: max(res.RequeueAfter, 0)}
	}
	after := res.RequeueAfter
	if after <= 0 {
		after = pollInterval
	}
	reason := res.Reason
	switch {
	case op == OpDelete:
		reason = conditions.ReasonDeleting
	case reason == "":
		reason = conditions.ReasonInProgress
	}
	return Classification{Class: ClassInProgress, Reason: reason, RequeueAfter: after}
}

// terminalMessage returns the message of a terminal error for its condition: the cause of one made by
// step.Terminal, the whole message of any other (controller-runtime's reads "terminal error: <cause>").
func terminalMessage(ctx context.Context, err error) string {
	var t *step.TerminalError
	if errors.As(err, &t) {
		return message(ctx, t.Cause())
	}
	return message(ctx, err)
}
