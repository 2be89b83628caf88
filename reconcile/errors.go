package reconcile

import (
	"errors"
	"fmt"
	"time"
)

// Reasons the reconcilers write into step conditions.
const (
	// ReasonTransientError is the reason of a step condition after an error that will be retried.
	ReasonTransientError = "TransientError"
	// ReasonInvalidParameters is the reason of a step condition when Ensure rejected the parameters of a
	// cloud call before making it; it is terminal.
	ReasonInvalidParameters = "InvalidParameters"
	// ReasonInProgress is the reason of a step condition while the step is not done yet.
	ReasonInProgress = "InProgress"
	// ReasonReady is the reason of a step condition when the step is done.
	ReasonReady = "Ready"
	// ReasonDeleting is the reason of a step condition while its resources are being deleted.
	ReasonDeleting = "Deleting"
	// ReasonWaitingForClusterInfrastructure is written while the Cluster's infrastructure is not provisioned.
	ReasonWaitingForClusterInfrastructure = "WaitingForClusterInfrastructure"
	// ReasonWaitingForBootstrapData is written while the Machine has no bootstrap data secret.
	ReasonWaitingForBootstrapData = "WaitingForBootstrapData"
)

// TerminalError is an error that retrying cannot fix (bad parameters, a quota the user must raise): the
// reconciler writes the step condition False with Reason and does not requeue. A change to the object
// (a new generation) triggers the next attempt.
type TerminalError struct {
	// Reason is the CamelCase reason written into the step condition.
	Reason string
	// Err is the cause; its message goes into the condition message.
	Err error
}

func (e *TerminalError) Error() string {
	return fmt.Sprintf("terminal error (%s): %v", e.Reason, e.Err)
}

// Unwrap returns the cause.
func (e *TerminalError) Unwrap() error { return e.Err }

// Terminal marks err as terminal with reason (CamelCase, e.g. "InvalidImage"). A nil err stays nil.
func Terminal(reason string, err error) error {
	if err == nil {
		return nil
	}
	if reason == "" {
		reason = "TerminalError"
	}
	return &TerminalError{Reason: reason, Err: err}
}

// TransientError is an error the next attempt may not have (a timeout, a throttled API): the reconciler
// returns it to controller-runtime, which requeues with exponential backoff. Unclassified errors are
// transient too; Transient only makes it explicit.
type TransientError struct {
	// Err is the cause.
	Err error
}

func (e *TransientError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *TransientError) Unwrap() error { return e.Err }

// Transient marks err as transient. A nil err stays nil.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &TransientError{Err: err}
}

// RequeueError asks the reconciler to check again after After without treating it as a failure: the step
// condition is False with Reason (ReasonInProgress when empty) and no backoff applies.
type RequeueError struct {
	// After is how long to wait before the next reconcile.
	After time.Duration
	// Reason is the reason written into the step condition.
	Reason string
}

func (e *RequeueError) Error() string { return fmt.Sprintf("requeue after %s (%s)", e.After, e.Reason) }

// RequeueAfter returns an error that asks for a new reconcile after d, for example while a cloud resource
// is still being created.
func RequeueAfter(d time.Duration) error { return &RequeueError{After: d, Reason: ReasonInProgress} }

// IsTerminal reports whether err is or wraps a TerminalError.
func IsTerminal(err error) bool {
	var t *TerminalError
	return errors.As(err, &t)
}

// IsTransient reports whether err would be retried with backoff: any non-nil error that is neither
// terminal nor a requeue hint.
func IsTransient(err error) bool {
	var r *RequeueError
	return err != nil && !IsTerminal(err) && !errors.As(err, &r)
}
