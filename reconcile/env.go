package reconcile

import (
	"context"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/ratelimit"
)

// Env is the environment of one reconcile, which the reconcilers put in the context of every step
// (ContextWithEnv) for Ensure, EnsureDeleted, Eventf and the services to read (EnvFrom): the object being
// reconciled and where its events go, the rate limiter of the cloud and the account whose bucket the calls
// use, the poll interval of pending resources, and how many changes the reconcile made in the cloud.
// The reconciler's options set it (WithEventRecorder, WithRateLimiter, WithDefaultRequeue); the identity
// binding (WithIdentity) sets the account. A nil *Env is the environment outside a reconcile: no recorder (events
// are logged), no rate limit, DefaultRequeueAfter.
type Env struct {
	object   client.Object
	recorder EventRecorder
	limiters *ratelimit.Limiters
	account  string
	poll     time.Duration
	progress *atomic.Int64
}

// NewEnv returns the environment of a reconcile of obj as a reconciler with opts would set it up: only
// WithEventRecorder, WithRateLimiter and WithDefaultRequeue matter. A test of a service puts it in the
// context with ContextWithEnv to see the events Ensure emits or to give Ensure a short poll interval.
func NewEnv(obj client.Object, opts ...Option) *Env {
	cfg := config{defaultRequeue: DefaultRequeueAfter}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg.env(obj)
}

// env returns the environment of a reconcile of obj under cfg.
func (c *config) env(obj client.Object) *Env {
	poll := c.defaultRequeue
	if poll <= 0 {
		poll = DefaultRequeueAfter
	}
	return &Env{object: obj, recorder: c.recorder, limiters: c.limiters, poll: poll, progress: new(atomic.Int64)}
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

// PollInterval returns how long a step waits before looking again at a resource that is pending, updated
// or being deleted: the reconciler's WithDefaultRequeue, DefaultRequeueAfter outside a reconcile. Ensure and
// EnsureDeleted use it unless given WithPollInterval.
func (e *Env) PollInterval() time.Duration {
	if e == nil || e.poll <= 0 {
		return DefaultRequeueAfter
	}
	return e.poll
}

// Account returns the key of the rate-limit bucket the reconcile's cloud calls use: the name of the bound
// identity (WithIdentity), "" without one.
func (e *Env) Account() string {
	if e == nil {
		return ""
	}
	return e.account
}

// Wait blocks until the reconcile's rate limiter (WithRateLimiter) lets a cloud call of its account through,
// or ctx ends, and returns how long it waited; without a rate limiter it returns at once. Ensure calls it
// before every cloud call; a service calls it before a cloud call of its own.
func (e *Env) Wait(ctx context.Context) (time.Duration, error) {
	if e == nil || e.limiters == nil {
		return 0, nil
	}
	return e.limiters.Wait(ctx, e.account)
}

// rateLimited reports whether the reconcile's cloud calls wait on a rate limiter.
func (e *Env) rateLimited() bool { return e != nil && e.limiters != nil }

// withAccount returns ctx whose environment counts its cloud calls against account's bucket.
func withAccount(ctx context.Context, account string) context.Context {
	e := EnvFrom(ctx)
	if e == nil {
		e = NewEnv(nil)
	}
	c := *e
	c.account = account
	return ContextWithEnv(ctx, &c)
}

// madeProgress records a change in the cloud (a create, adoption, update or delete).
func (e *Env) madeProgress() {
	if e != nil && e.progress != nil {
		e.progress.Add(1)
	}
}

// progressMade returns how many changes the reconcile made in the cloud so far.
func (e *Env) progressMade() int64 {
	if e == nil || e.progress == nil {
		return 0
	}
	return e.progress.Load()
}
