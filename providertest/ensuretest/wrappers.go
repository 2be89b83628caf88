package ensuretest

import (
	"context"
	"fmt"
	"slices"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope/scopetest"
)

// full is a Resource with the optional interfaces that every wrapper keeps (extended).
type full[S, O any] interface {
	ensure.Resource[S, O]
	ensure.Declarer
	ensure.OperationPoller[O]
	ensure.Kinded
}

// extended is the wrapper w of the Resource orig with orig's ensure.Declarer, ensure.OperationPoller (unless w
// polls itself) and ensure.Kinded. It has them whether orig has them or not, which changes nothing in ensure:
// the Guarantees of a Resource that declares none are the zero Guarantees, a poll of a Resource that is no
// OperationPoller fails, and the kind of one that is not Kinded is its key.
type extended[S, O any] struct {
	ensure.Resource[S, O]
	orig ensure.Resource[S, O]
}

func (e extended[S, O]) Guarantees() ensure.Guarantees { return guarantees(e.orig) }

func (e extended[S, O]) PollOperation(ctx context.Context, op string) (obs O, done bool, err error) {
	if p, ok := e.Resource.(ensure.OperationPoller[O]); ok {
		return p.PollOperation(ctx, op)
	}
	return poll(ctx, e.orig, op)
}

// poll reads the operation op of r, which fails when r is no ensure.OperationPoller.
func poll[S, O any](ctx context.Context, r ensure.Resource[S, O], op string) (obs O, done bool, err error) {
	p, ok := r.(ensure.OperationPoller[O])
	if !ok {
		return obs, false, fmt.Errorf("cannot read operation %q: the Resource is no ensure.OperationPoller", op)
	}
	return p.PollOperation(ctx, op)
}

func (e extended[S, O]) Kind() string {
	if k, ok := e.orig.(ensure.Kinded); ok {
		return k.Kind()
	}
	return ""
}

// wrap returns a Resource that calls w for the core methods and keeps the optional interfaces of orig
// (ensure.Updater, ensure.PendingReporter, and those of extended), so that a wrapped Resource behaves in
// Ensure as orig does. upd, when not nil, replaces orig's Update.
func wrap[S, O any](orig, w ensure.Resource[S, O], upd updateFunc[S, O]) ensure.Resource[S, O] {
	u, isUpdater := orig.(ensure.Updater[S, O])
	p, isPending := orig.(ensure.PendingReporter[O])
	if isUpdater && upd != nil {
		u = updaterWith[S, O]{Updater: u, update: upd}
	}
	e := full[S, O](extended[S, O]{Resource: w, orig: orig})
	switch {
	case isUpdater && isPending:
		return struct {
			full[S, O]
			ensure.Updater[S, O]
			ensure.PendingReporter[O]
		}{e, u, p}
	case isUpdater:
		return struct {
			full[S, O]
			ensure.Updater[S, O]
		}{e, u}
	case isPending:
		return struct {
			full[S, O]
			ensure.PendingReporter[O]
		}{e, p}
	}
	return e
}

type updateFunc[S, O any] func(ctx context.Context, id string, spec S, obs O) (O, error)

type updaterWith[S, O any] struct {
	ensure.Updater[S, O]
	update updateFunc[S, O]
}

func (u updaterWith[S, O]) Update(ctx context.Context, id string, spec S, obs O) (O, error) {
	return u.update(ctx, id, spec, obs)
}

// lostResponse makes the next Create that reaches the cloud (made, or accepted as an operation) return
// errLostResponse instead of its response.
type lostResponse[S, O any] struct {
	ensure.Resource[S, O]
	armed bool
}

func (l *lostResponse[S, O]) Create(ctx context.Context, spec S, token string, tags map[string]string) (O, error) {
	obs, err := l.Resource.Create(ctx, spec, token, tags)
	if l.armed && reachedCloud(err) {
		l.armed = false
		var zero O
		return zero, errLostResponse
	}
	return obs, err
}

// callCounter counts the cloud calls of a Resource, Update included when it is a ensure.Updater.
type callCounter[S, O any] struct {
	ensure.Resource[S, O]
	calls []string
}

// counted returns r wrapped in a callCounter that keeps r's optional interfaces; failUpdate, when not nil,
// is returned by the next Update instead of calling it.
func counted[S, O any](r ensure.Resource[S, O], failUpdate error) (ensure.Resource[S, O], *callCounter[S, O]) {
	cc := &callCounter[S, O]{Resource: r}
	var upd updateFunc[S, O]
	if u, ok := r.(ensure.Updater[S, O]); ok {
		upd = func(ctx context.Context, id string, spec S, obs O) (O, error) {
			cc.calls = append(cc.calls, "Update")
			if failUpdate != nil {
				err := failUpdate
				failUpdate = nil
				var zero O
				return zero, err
			}
			return u.Update(ctx, id, spec, obs)
		}
	}
	return wrap(r, ensure.Resource[S, O](cc), upd), cc
}

func (c *callCounter[S, O]) writes() []string {
	return slices.DeleteFunc(slices.Clone(c.calls), func(m string) bool { return m == "Get" || m == "FindByTags" })
}

// count returns how many times method was called.
func (c *callCounter[S, O]) count(method string) int {
	n := 0
	for _, m := range c.calls {
		if m == method {
			n++
		}
	}
	return n
}

func (c *callCounter[S, O]) Get(ctx context.Context, id string) (O, bool, error) {
	c.calls = append(c.calls, "Get")
	return c.Resource.Get(ctx, id)
}

func (c *callCounter[S, O]) FindByTags(ctx context.Context, tags map[string]string) (O, bool, error) {
	c.calls = append(c.calls, "FindByTags")
	return c.Resource.FindByTags(ctx, tags)
}

func (c *callCounter[S, O]) Create(ctx context.Context, spec S, token string, tags map[string]string) (O, error) {
	c.calls = append(c.calls, "Create")
	return c.Resource.Create(ctx, spec, token, tags)
}

func (c *callCounter[S, O]) Delete(ctx context.Context, id string) error {
	c.calls = append(c.calls, "Delete")
	return c.Resource.Delete(ctx, id)
}

// crashing makes the controller die at the first patch after its first Create that reached the cloud (made, or
// accepted as an operation), or with afterOperation after its first PollOperation that returned the resource of a
// finished operation: that patch, which would have persisted the outcome (the resource's ID, or the operation),
// fails with errCrash.
type crashing[S, O any] struct {
	ensure.Resource[S, O]
	tr             *scopetest.Tracker
	afterOperation bool
	crashed        bool
}

// crashAfterCreate returns res wrapped to crash after its first Create that reaches the cloud.
func crashAfterCreate[S, O any](res ensure.Resource[S, O], tr *scopetest.Tracker) ensure.Resource[S, O] {
	return wrap(res, ensure.Resource[S, O](&crashing[S, O]{Resource: res, tr: tr}), nil)
}

// crashAfterOperation returns res wrapped to crash after its first poll of a finished create operation.
func crashAfterOperation[S, O any](res ensure.Resource[S, O], tr *scopetest.Tracker) ensure.Resource[S, O] {
	return wrap(res, ensure.Resource[S, O](&crashing[S, O]{Resource: res, tr: tr, afterOperation: true}), nil)
}

func (c *crashing[S, O]) Create(ctx context.Context, spec S, token string, tags map[string]string) (O, error) {
	obs, err := c.Resource.Create(ctx, spec, token, tags)
	if !c.afterOperation && reachedCloud(err) {
		c.crash()
	}
	return obs, err
}

func (c *crashing[S, O]) PollOperation(ctx context.Context, op string) (obs O, done bool, err error) {
	obs, done, err = poll(ctx, c.Resource, op)
	if c.afterOperation && done && err == nil {
		c.crash()
	}
	return obs, done, err
}

// crash makes the next patch fail, once.
func (c *crashing[S, O]) crash() {
	if !c.crashed {
		c.crashed = true
		c.tr.FailNextPatch(errCrash)
	}
}
