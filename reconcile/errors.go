package reconcile

import (
	"context"
	"errors"
	"fmt"

	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Reasons the reconcilers write into step conditions.
const (
	// ReasonTransientError is the reason of a step condition after an error that will be retried.
	ReasonTransientError = "TransientError"
	// ReasonTerminalError is the reason of a step condition after a terminal error that gave no reason of
	// its own (controller-runtime's reconcile.TerminalError).
	ReasonTerminalError = "TerminalError"
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

// A service reports how a step went in one of three ways, and only these:
//
//   - done or not done yet: a Result (Done false, with RequeueAfter, Reason and Message, is "not yet": no
//     error, no backoff);
//   - a terminal error (Terminal, or controller-runtime's reconcile.TerminalError): retrying cannot help,
//     the step condition says why and nothing is retried until the object changes;
//   - any other error: retried by controller-runtime with exponential backoff.

// TerminalError is a terminal error with the CamelCase reason the reconciler writes into the step
// condition. It wraps controller-runtime's reconcile.TerminalError, so that errors.Is(err,
// reconcile.TerminalError(nil)) holds for it as for any terminal error.
type TerminalError struct {
	// Reason is the CamelCase reason written into the step condition.
	Reason string
	// Err is the cause, wrapped in controller-runtime's terminal error; its message goes into the condition.
	Err error
}

func (e *TerminalError) Error() string {
	return fmt.Sprintf("terminal error (%s): %v", e.Reason, e.cause())
}

// Unwrap returns controller-runtime's terminal error around the cause.
func (e *TerminalError) Unwrap() error { return e.Err }

func (e *TerminalError) cause() error {
	if u := errors.Unwrap(e.Err); u != nil {
		return u
	}
	return e.Err
}

// Terminal marks err as terminal with reason (CamelCase, e.g. "InvalidImage"; ReasonTerminalError when
// empty). A nil err stays nil.
func Terminal(reason string, err error) error {
	if err == nil {
		return nil
	}
	if reason == "" {
		reason = ReasonTerminalError
	}
	return &TerminalError{Reason: reason, Err: crreconcile.TerminalError(err)}
}

// IsTerminal reports whether err is terminal: made by Terminal or by controller-runtime's
// reconcile.TerminalError, possibly wrapped.
func IsTerminal(err error) bool {
	return err != nil && errors.Is(err, crreconcile.TerminalError(nil))
}

// TerminalReason returns the condition reason of a terminal error: the Reason given to Terminal, or
// ReasonTerminalError for controller-runtime's reconcile.TerminalError; "" for any other error.
func TerminalReason(err error) string {
	var t *TerminalError
	switch {
	case errors.As(err, &t):
		return t.Reason
	case IsTerminal(err):
		return ReasonTerminalError
	}
	return ""
}

// terminalMessage returns the message of a terminal error for its condition: the cause of one made by
// Terminal, the whole message of any other (controller-runtime's reads "terminal error: <cause>").
func terminalMessage(ctx context.Context, err error) string {
	var t *TerminalError
	if errors.As(err, &t) {
		return message(ctx, t.cause())
	}
	return message(ctx, err)
}
