package ensuretest

import (
	"context"
	"slices"

	"github.com/capkit/capkit/reconcile/ensure"
)

// wrap returns a Resource that calls w for the core methods and keeps the optional interfaces of orig
// (ensure.Updater, ensure.PendingReporter), so that a wrapped Resource behaves in Ensure as orig does.
// upd, when not nil, replaces orig's Update.
func wrap[S, O any](orig, w ensure.Resource[S, O], upd updateFunc[S, O]) ensure.Resource[S, O] {
	u, isUpdater := orig.(ensure.Updater[S, O])
	p, isPending := orig.(ensure.PendingReporter[O])
	if isUpdater && upd != nil {
		u = updaterWith[S, O]{Updater: u, update: upd}
	}
	switch {
	case isUpdater && isPending:
		return struct {
			ensure.Resource[S, O]
			ensure.Updater[S, O]
			ensure.PendingReporter[O]
		}{w, u, p}
	case isUpdater:
		return struct {
			ensure.Resource[S, O]
			ensure.Updater[S, O]
		}{w, u}
	case isPending:
		return struct {
			ensure.Resource[S, O]
			ensure.PendingReporter[O]
		}{w, p}
	}
	return w
}

type updateFunc[S, O any] func(ctx context.Context, id string, spec S, obs O) (O, error)

type updaterWith[S, O any] struct {
	ensure.Updater[S, O]
	update updateFunc[S, O]
}

func (u updaterWith[S, O]) Update(ctx context.Context, id string, spec S, obs O) (O, error) {
	return u.update(ctx, id, spec, obs)
}

// lostResponse makes the next Create make its change and then return errLostResponse.
type lostResponse[S, O any] struct {
	ensure.Resource[S, O]
	armed bool
}

func (l *lostResponse[S, O]) Create(ctx context.Context, spec S, token string, tags map[string]string) (O, error) {
	obs, err := l.Resource.Create(ctx, spec, token, tags)
	if err == nil && l.armed {
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
