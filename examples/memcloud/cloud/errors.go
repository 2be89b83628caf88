package cloud

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error returned by the API wraps exactly one of them (or a context
// error), so callers branch with errors.Is.
var (
	// ErrNotFound means that no resource of the requested kind has the given ID. Deleting a
	// resource that is already gone returns it too: callers treat it as success.
	ErrNotFound = errors.New("resource not found")
	// ErrInvalidParameter means that a request is malformed: empty name, bad CIDR, unknown or
	// wrong parent ID, subnet outside its network, user data too large. The message names the
	// field and the value. Retrying the same request never helps.
	ErrInvalidParameter = errors.New("invalid parameter")
	// ErrDependencyViolation means that a resource cannot be deleted because other resources
	// still depend on it (a network with subnets, a subnet with instances or instance groups, a
	// security group used by instances or instance groups). Delete the dependents first.
	ErrDependencyViolation = errors.New("dependency violation")
	// ErrTokenReused means that a create request carries an idempotency token whose resource has
	// been deleted since. memcloud never resurrects a deleted resource under an old token: a
	// caller that really wants a new resource must use a new token.
	ErrTokenReused = errors.New("idempotency token belongs to a deleted resource")
	// ErrTokenMismatch means that a create request carries an idempotency token already used
	// with different parameters (name, tags, CIDR, ...). It points at a caller deriving the same
	// token for two different resources.
	ErrTokenMismatch = errors.New("idempotency token already used with different parameters")
	// ErrQuotaExceeded means that a kind's quota (WithQuota) is used up, or that a subnet has no
	// free address left for a new instance (of an instance group too).
	ErrQuotaExceeded = errors.New("quota exceeded")
	// ErrAddressInUse means that a create request asks for a static address
	// (InstanceSpec.StaticIPs) that another live instance of the cloud has. The message names the
	// address, not the instance, which may belong to another account. Retrying helps only once that
	// instance is deleted.
	ErrAddressInUse = errors.New("address in use")
	// ErrIncorrectState means that a resource is not in a state that allows the call: an instance that
	// is booting, failed or being resized to another flavor cannot be resized. The message names the
	// resource and its state. Retrying may help once the state has changed.
	ErrIncorrectState = errors.New("incorrect state")
	// ErrInjected is wrapped by every fault injected by FaultConfig or FailNext, so that tests
	// can tell injected failures from real ones. Errors wrapping it are transient: retry.
	ErrInjected = errors.New("injected fault")
	// ErrUnauthorized means that a call was refused for its credentials (see WithCredentials):
	// none in a cloud with accounts, an unknown access key ID (never issued, rotated or of a
	// deleted account) or a wrong secret. The call did nothing, revealed nothing, and retrying
	// with the same credentials never helps. Errors wrapping it are *UnauthorizedError values.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrThrottled means that a call was refused by the rate limit (WithRateLimit): its
	// account made too many calls too fast. The call did nothing; retry it, with the same
	// idempotency token, after the wait that RetryAfter returns. Errors wrapping it are
	// *ThrottledError values.
	ErrThrottled = errors.New("throttled")
	// ErrAccepted is not a failure: a create on a cloud with asynchronous creates
	// (WithAsyncCreates) was accepted and runs as an operation, whose ID Accepted returns. The
	// resource exists once the operation is done (GetOperation). Errors wrapping it are
	// *AcceptedError values.
	ErrAccepted = errors.New("accepted as an operation")
)

// FaultError is the error of an injected fault. It matches ErrInjected with errors.Is. Applied
// tells whether the change was made before the error was returned (the lost-response case); it
// is for debugging tests only: a real cloud does not say, and providers must not rely on it.
type FaultError struct {
	// Op is the operation that failed.
	Op Op
	// Applied is true when the change was made and only the response was lost.
	Applied bool
}

// Error describes the fault.
func (e *FaultError) Error() string {
	if e.Applied {
		return fmt.Sprintf("injected fault in %s after the change was applied", e.Op)
	}
	return fmt.Sprintf("injected fault in %s before any change", e.Op)
}

// Is reports whether target is ErrInjected.
func (e *FaultError) Is(target error) bool { return target == ErrInjected }

// AcceptedError is what a create returns on a cloud with asynchronous creates: the request was
// accepted and runs as the operation Operation. It matches ErrAccepted with errors.Is.
type AcceptedError struct {
	// Op is the create that was accepted.
	Op Op
	// Operation is the ID of the operation, for GetOperation.
	Operation string
}

// Error describes the acceptance, for example `CreateNetwork accepted as operation "op-net-1f2e3d4c"`.
func (e *AcceptedError) Error() string {
	return fmt.Sprintf("%s accepted as operation %q", e.Op, e.Operation)
}

// Is reports whether target is ErrAccepted.
func (e *AcceptedError) Is(target error) bool { return target == ErrAccepted }

// Accepted returns the ID of the operation that runs a create whose call returned err, and
// whether err is such an acceptance (an *AcceptedError).
func Accepted(err error) (operation string, ok bool) {
	var a *AcceptedError
	if errors.As(err, &a) {
		return a.Operation, true
	}
	return "", false
}

// Reasons of an UnauthorizedError.
const (
	reasonNoCredentials  = "no credentials"
	reasonUnknownKey     = "unknown access key ID"
	reasonWrongSecret    = "wrong secret access key"
	reasonAccountDeleted = "account deleted during the call"
)

// UnauthorizedError is the error of a call refused for its credentials. It matches
// ErrUnauthorized with errors.Is. It names the operation and the access key ID, never the
// secret access key.
type UnauthorizedError struct {
	// Op is the operation that was refused.
	Op Op
	// AccessKeyID is the access key ID of the call's credentials, "" when it had none.
	AccessKeyID string
	// Reason says why, for example "unknown access key ID" or "wrong secret access key"; it is
	// for people reading test failures: branch on ErrUnauthorized.
	Reason string
}

// Error describes the refusal, for example
// `unauthorized: CreateNetwork with access key "MCAK0123456789ABCDEF": wrong secret access key`.
func (e *UnauthorizedError) Error() string {
	if e.Reason == reasonNoCredentials {
		return fmt.Sprintf("unauthorized: %s without credentials", e.Op)
	}
	return fmt.Sprintf("unauthorized: %s with access key %q: %s", e.Op, e.AccessKeyID, e.Reason)
}

// Is reports whether target is ErrUnauthorized.
func (e *UnauthorizedError) Is(target error) bool { return target == ErrUnauthorized }

// invalid returns an ErrInvalidParameter error naming the field and its value.
func invalid(field string, value any, reason string) error {
	return fmt.Errorf("%w: %s %q %s", ErrInvalidParameter, field, fmt.Sprint(value), reason)
}
