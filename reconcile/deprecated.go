package reconcile

import (
	"context"
	"time"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// The names below moved in v0.2.0: what a step returns and runs in to package step, the lifecycle of one cloud
// resource to package ensure. They stay for v0.2.x as deprecated forms; `go fix ./...` rewrites the callers of
// the constants, type aliases and non-generic functions (Go does not inline calls of generic functions: write
// ensure.Exists, ensure.Deleted, ensure.Given, ensure.Lazy and ensure.NewResource instead).

// Result is what a service reports after one attempt to reconcile or delete its part of the infrastructure.
//
// Deprecated: use step.Result.
//
//go:fix inline
type Result = step.Result

// DefaultRequeueAfter is the poll interval when none is set.
//
// Deprecated: use step.DefaultPollInterval.
//
//go:fix inline
const DefaultRequeueAfter = step.DefaultPollInterval

// WithDefaultRequeue sets the poll interval of the reconciler's steps.
//
// Deprecated: use WithPollInterval.
//
//go:fix inline
func WithDefaultRequeue(d time.Duration) Option { return WithPollInterval(d) }

// Env is the environment of one reconcile.
//
// Deprecated: use step.Env.
//
//go:fix inline
type Env = step.Env

// ContextWithEnv returns ctx carrying env.
//
// Deprecated: use step.ContextWithEnv.
//
//go:fix inline
func ContextWithEnv(ctx context.Context, env *step.Env) context.Context {
	return step.ContextWithEnv(ctx, env)
}

// EnvFrom returns the environment of the reconcile of ctx.
//
// Deprecated: use step.EnvFrom.
//
//go:fix inline
func EnvFrom(ctx context.Context) *step.Env { return step.EnvFrom(ctx) }

// EventRecorder records events.
//
// Deprecated: use step.EventRecorder.
//
//go:fix inline
type EventRecorder = step.EventRecorder

// Event types.
//
// Deprecated: use step.EventNormal and step.EventWarning.
const (
	//go:fix inline
	EventNormal = step.EventNormal
	//go:fix inline
	EventWarning = step.EventWarning
)

// Eventf records an event about the object being reconciled.
//
// Deprecated: use step.Eventf.
//
//go:fix inline
func Eventf(ctx context.Context, eventType, reason, note string, args ...any) {
	step.Eventf(ctx, eventType, reason, note, args...)
}

// TerminalError is a terminal error with the reason of its step condition.
//
// Deprecated: use step.TerminalError.
//
//go:fix inline
type TerminalError = step.TerminalError

// Terminal marks err as terminal with reason.
//
// Deprecated: use step.Terminal.
//
//go:fix inline
func Terminal(reason string, err error) error { return step.Terminal(reason, err) }

// IsTerminal reports whether err is terminal.
//
// Deprecated: use step.IsTerminal.
//
//go:fix inline
func IsTerminal(err error) bool { return step.IsTerminal(err) }

// TerminalReason returns the condition reason of a terminal error.
//
// Deprecated: use step.TerminalReason.
//
//go:fix inline
func TerminalReason(err error) string { return step.TerminalReason(err) }

// ThrottledError is a cloud call the cloud refused for its rate limit.
//
// Deprecated: use step.ThrottledError.
//
//go:fix inline
type ThrottledError = step.ThrottledError

// Throttled marks err as throttling with the cloud's hint retryAfter.
//
// Deprecated: use step.Throttled.
//
//go:fix inline
func Throttled(err error, retryAfter time.Duration) error { return step.Throttled(err, retryAfter) }

// IsThrottled reports whether err is throttling.
//
// Deprecated: use step.IsThrottled.
//
//go:fix inline
func IsThrottled(err error) bool { return step.IsThrottled(err) }

// Tags that ensure puts on every resource it creates.
//
// Deprecated: use ensure.TagOwnershipKey and ensure.TagResourceKey.
const (
	//go:fix inline
	TagOwnershipKey = ensure.TagOwnershipKey
	//go:fix inline
	TagResourceKey = ensure.TagResourceKey
)

// MaxTaggedDeletes bounds how many tagged resources one delete call deletes.
//
// Deprecated: use ensure.MaxTaggedDeletes.
//
//go:fix inline
const MaxTaggedDeletes = ensure.MaxTaggedDeletes

// Resource is the lifecycle of one kind of cloud resource.
//
// Deprecated: use ensure.Resource.
//
//go:fix inline
type Resource[S, O any] = ensure.Resource[S, O]

// Updater is a Resource that updates drift in place.
//
// Deprecated: use ensure.Updater.
//
//go:fix inline
type Updater[S, O any] = ensure.Updater[S, O]

// PendingReporter is a Resource whose resources can be pending.
//
// Deprecated: use ensure.PendingReporter.
//
//go:fix inline
type PendingReporter[O any] = ensure.PendingReporter[O]

// Kinded names the kind of cloud resource in capkit's metrics.
//
// Deprecated: use ensure.Kinded.
//
//go:fix inline
type Kinded = ensure.Kinded

// Action is what Ensure did.
//
// Deprecated: use ensure.Action.
//
//go:fix inline
type Action = ensure.Action

// Actions of Ensure.
//
// Deprecated: use ensure.ActionFound, ensure.ActionAdopted, ensure.ActionCreated and ensure.ActionUpdated.
const (
	//go:fix inline
	ActionFound = ensure.ActionFound
	//go:fix inline
	ActionAdopted = ensure.ActionAdopted
	//go:fix inline
	ActionCreated = ensure.ActionCreated
	//go:fix inline
	ActionUpdated = ensure.ActionUpdated
)

// EnsureResult is the outcome of Ensure.
//
// Deprecated: use ensure.Result.
//
//go:fix inline
type EnsureResult[O any] = ensure.Result[O]

// Spec is the desired state of a resource.
//
// Deprecated: use ensure.Spec.
//
//go:fix inline
type Spec[S any] = ensure.Spec[S]

// Given is a spec at hand.
//
// Deprecated: use ensure.Given (go fix does not inline generic calls).
func Given[S any](spec S) ensure.Spec[S] { return ensure.Given(spec) }

// Lazy is a spec computed by fn when a create or an update needs it.
//
// Deprecated: use ensure.Lazy (go fix does not inline generic calls).
func Lazy[S any](fn func(ctx context.Context) (S, error)) ensure.Spec[S] { return ensure.Lazy(fn) }

// EnsureOption configures Ensure and EnsureDeleted.
//
// Deprecated: use ensure.Option.
//
//go:fix inline
type EnsureOption = ensure.Option

// CreateOnce makes Ensure create the resource at most once per owner.
//
// Deprecated: use ensure.CreateOnce.
//
//go:fix inline
func CreateOnce() ensure.Option { return ensure.CreateOnce() }

// WithTags adds tags to the resources Ensure creates.
//
// Deprecated: use ensure.WithTags.
//
//go:fix inline
func WithTags(tags map[string]string) ensure.Option { return ensure.WithTags(tags) }

// OwnershipTags returns the tags of a resource key of an owner.
//
// Deprecated: use ensure.OwnershipTags.
//
//go:fix inline
func OwnershipTags(ownershipKey, key string) map[string]string {
	return ensure.OwnershipTags(ownershipKey, key)
}

// IdempotencyToken returns the token of a resource key of an owner.
//
// Deprecated: use ensure.IdempotencyToken.
//
//go:fix inline
func IdempotencyToken(ownershipKey, key string) string {
	return ensure.IdempotencyToken(ownershipKey, key)
}

// Ensure makes sure the cloud resource key of the tracker's owner exists and matches spec.
//
// Deprecated: use ensure.Exists (go fix does not inline generic calls).
func Ensure[S, O any](ctx context.Context, t scope.ResourceTracker, key string, r ensure.Resource[S, O], spec ensure.Spec[S], opts ...ensure.Option) (ensure.Result[O], error) {
	return ensure.Exists(ctx, t, key, r, spec, opts...)
}

// EnsureDeleted deletes the cloud resource key of the tracker's owner.
//
// Deprecated: use ensure.Deleted (go fix does not inline generic calls).
func EnsureDeleted[S, O any](ctx context.Context, t scope.ResourceTracker, key string, r ensure.Resource[S, O], opts ...ensure.Option) (step.Result, error) {
	return ensure.Deleted(ctx, t, key, r, opts...)
}

// ResourceFuncs are the functions of a Resource.
//
// Deprecated: use ensure.ResourceFuncs.
//
//go:fix inline
type ResourceFuncs[S, O any] = ensure.ResourceFuncs[S, O]

// NewResource builds a Resource from functions.
//
// Deprecated: use ensure.NewResource (go fix does not inline generic calls).
func NewResource[S, O any](f ensure.ResourceFuncs[S, O]) ensure.Resource[S, O] {
	return ensure.NewResource(f)
}

// GoneIfNotFound turns a get that fails with NotFound into a get that reports a gone resource.
//
// Deprecated: use ensure.GoneIfNotFound (go fix does not inline generic calls).
func GoneIfNotFound[O any](get func(ctx context.Context, id string) (O, error), notFound func(error) bool) func(ctx context.Context, id string) (O, bool, error) {
	return ensure.GoneIfNotFound(get, notFound)
}

// IgnoreErrors turns a delete whose ignored errors mean gone into one that succeeds on them.
//
// Deprecated: use ensure.IgnoreErrors.
//
//go:fix inline
func IgnoreErrors(del func(ctx context.Context, id string) error, ignore ...func(error) bool) func(ctx context.Context, id string) error {
	return ensure.IgnoreErrors(del, ignore...)
}

// FindOldest turns a list by tags into a FindByTags that returns the oldest.
//
// Deprecated: use ensure.FindOldest (go fix does not inline generic calls).
func FindOldest[E any](list func(ctx context.Context, tags map[string]string) ([]E, error), createdAt func(*E) time.Time) func(ctx context.Context, tags map[string]string) (*E, bool, error) {
	return ensure.FindOldest(list, createdAt)
}
