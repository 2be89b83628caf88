package step

import (
	"context"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/ratelimit"
)

// Env is the environment of one reconcile, which the reconcilers put in the context of every step
// (ContextWithEnv) for ensure, Eventf and the services to read (EnvFrom): the object being reconciled and where
// its events go, the rate limiter of the cloud and the account whose bucket the calls use, the poll interval of
// pending resources, and how many changes the reconcile made in the cloud. The reconciler's options set it
// (reconcile.WithEventRecorder, WithRateLimiter, WithPollInterval); the identity binding (reconcile.WithIdentity)
// sets the account. A nil *Env is the environment outside a reconcile: no recorder (events are logged), no rate
// limit, DefaultPollInterval.
type Env struct {
	object   client.Object
	recorder EventRecorder
	limiters *ratelimit.Limiters
	account  string
	poll     time.Duration
	changes  *atomic.Int64
}

// EnvOptions are the settings of an Env; the zero value is an Env without recorder and rate limiter that polls
// every DefaultPollInterval.
type EnvOptions struct {
	// Recorder receives the events of Eventf; nil logs them.
	Recorder EventRecorder
	// Limiters rate-limit the cloud calls of ensure (Env.Wait); nil does not.
	Limiters *ratelimit.Limiters
	// PollInterval is how long a step waits before it looks again at a pending resource; DefaultPollInterval
	// when zero or negative.
	PollInterval time.Duration
}

// NewEnv returns the environment of a reconcile of obj with o. reconcile.NewEnv builds it from a reconciler's
// options; a test of a service puts either in the context with ContextWithEnv.
func NewEnv(obj client.Object, o EnvOptions) *Env {
	poll := o.PollInterval
	if poll <= 0 {
		poll = DefaultPollInterval
	}
	return &Env{object: obj, recorder: o.Recorder, limiters: o.Limiters, poll: poll, changes: new(atomic.Int64)}
}

// envKey is the context key of the Env of a reconcile.
type envKey struct{}

// ContextWithEnv returns ctx carrying env; the reconcilers call it for every reconcile.
func ContextWithEnv(ctx context.Context, env *Env) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// EnvFrom returns the environment of the reconcile of ctx, nil outside a reconcile (every method of Env
// works on nil).
func EnvFrom(ctx context.Context) *Env {
	e, _ := ctx.Value(envKey{}).(*Env)
	return e
}

// Object returns the object being reconciled, nil outside a reconcile.
func (e *Env) Object() client.Object {
	if e == nil {
		return nil
	}
	return e.object
}

// PollInterval returns how long a step waits before looking again at a resource that is pending, updated or
// being deleted: the reconciler's reconcile.WithPollInterval, DefaultPollInterval outside a reconcile. ensure
// uses it unless given ensure.WithPollInterval.
func (e *Env) PollInterval() time.Duration {
	if e == nil || e.poll <= 0 {
		return DefaultPollInterval
	}
	return e.poll
}

// Account returns the key of the rate-limit bucket the reconcile's cloud calls use: the name of the bound
// identity (reconcile.WithIdentity), "" without one.
func (e *Env) Account() string {
	if e == nil {
		return ""
	}
	return e.account
}

// Wait blocks until the reconcile's rate limiter (reconcile.WithRateLimiter) lets a cloud call of its account
// through, or ctx ends, and returns how long it waited; without a rate limiter it returns at once. ensure calls
// it before every cloud call; a service calls it before a cloud call of its own.
func (e *Env) Wait(ctx context.Context) (time.Duration, error) {
	if e == nil || e.limiters == nil {
		return 0, nil
	}
	return e.limiters.Wait(ctx, e.account)
}

// RateLimited reports whether the reconcile's cloud calls wait on a rate limiter.
func (e *Env) RateLimited() bool { return e != nil && e.limiters != nil }

// WithAccount returns ctx whose environment counts its cloud calls against account's bucket; outside a
// reconcile it starts from NewEnv(nil, EnvOptions{}).
func WithAccount(ctx context.Context, account string) context.Context {
	e := EnvFrom(ctx)
	if e == nil {
		e = NewEnv(nil, EnvOptions{})
	}
	c := *e
	c.account = account
	return ContextWithEnv(ctx, &c)
}

// RecordChange records a change in the cloud (a create, adoption, update or delete) in the Env of ctx: a
// reconcile that made one is not throttled in a row (reconcile's backoff starts again).
func RecordChange(ctx context.Context) {
	if e := EnvFrom(ctx); e != nil && e.changes != nil {
		e.changes.Add(1)
	}
}

// Changes returns how many changes the reconcile made in the cloud so far (RecordChange).
func (e *Env) Changes() int64 {
	if e == nil || e.changes == nil {
		return 0
	}
	return e.changes.Load()
}
