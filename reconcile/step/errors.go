package step

import (
	"errors"
	"fmt"
	"time"

	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/conditions"
)

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
	return fmt.Sprintf("terminal error (%s): %v", e.Reason, e.Cause())
}

// Unwrap returns controller-runtime's terminal error around the cause.
func (e *TerminalError) Unwrap() error { return e.Err }

// Cause returns the error given to Terminal, without controller-runtime's wrapping: what the step condition's
// message says.
func (e *TerminalError) Cause() error {
	if u := errors.Unwrap(e.Err); u != nil {
		return u
	}
	return e.Err
}

// Terminal marks err as terminal with reason (CamelCase, e.g. "InvalidImage"; conditions.ReasonTerminalError when
// empty). A nil err stays nil.
func Terminal(reason string, err error) error {
	if err == nil {
		return nil
	}
	if reason == "" {
		reason = conditions.ReasonTerminalError
	}
	return &TerminalError{Reason: reason, Err: crreconcile.TerminalError(err)}
}

// IsTerminal reports whether err is terminal: made by Terminal or by controller-runtime's
// reconcile.TerminalError, possibly wrapped.
func IsTerminal(err error) bool {
	return err != nil && errors.Is(err, crreconcile.TerminalError(nil))
}

// TerminalReason returns the condition reason of a terminal error: the Reason given to Terminal, or
// conditions.ReasonTerminalError for controller-runtime's reconcile.TerminalError; "" for any other error.
func TerminalReason(err error) string {
	var t *TerminalError
	switch {
	case errors.As(err, &t):
		return t.Reason
	case IsTerminal(err):
		return conditions.ReasonTerminalError
	}
	return ""
}

// ThrottledError is a cloud call the cloud refused for its rate limit (HTTP 429, a cloud's own throttling
// code). It is not a failure: the reconcile is requeued after RetryAfter, or a bounded backoff without it.
type ThrottledError struct {
	// RetryAfter is the cloud's hint (Retry-After); zero when it gave none.
	RetryAfter time.Duration
	// Err is the cloud's error.
	Err error
}

func (e *ThrottledError) Error() string { return fmt.Sprintf("throttled by the cloud: %v", e.Err) }

// Unwrap returns the cloud's error.
func (e *ThrottledError) Unwrap() error { return e.Err }

// Throttled marks err, a cloud call refused for its rate limit, as throttling; retryAfter is the cloud's hint
// (zero without one). A provider's resource returns it from its calls, as it returns Terminal for a terminal
// error.
func Throttled(err error, retryAfter time.Duration) error {
	if err == nil {
		return nil
	}
	return &ThrottledError{RetryAfter: max(retryAfter, 0), Err: err}
}

// IsThrottled reports whether err is throttling: a ThrottledError (Throttled), possibly wrapped. The cloud's
// hint is its RetryAfter (errors.As), and reconcile.Classify says what the reconciler does with it.
func IsThrottled(err error) bool {
	var t *ThrottledError
	return errors.As(err, &t)
}
