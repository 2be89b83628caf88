package ensuretest

import (
	"context"

	"github.com/capkit/capkit/reconcile"
)

// lostResponse makes the next Create make its change and then return errLostResponse.
type lostResponse[S any] struct {
	reconcile.Resource[S]
	armed bool
}

func (l *lostResponse[S]) Create(ctx context.Context, spec S, token string, tags map[string]string) (string, error) {
	id, err := l.Resource.Create(ctx, spec, token, tags)
	if err == nil && l.armed {
		l.armed = false
		return "", errLostResponse
	}
	return id, err
}

// callCounter counts the cloud calls of a Resource.
type callCounter[S any] struct {
	reconcile.Resource[S]
	calls []string
}

func (c *callCounter[S]) Get(ctx context.Context, id string) (bool, error) {
	c.calls = append(c.calls, "Get")
	return c.Resource.Get(ctx, id)
}

func (c *callCounter[S]) FindByTags(ctx context.Context, tags map[string]string) (string, bool, error) {
	c.calls = append(c.calls, "FindByTags")
	return c.Resource.FindByTags(ctx, tags)
}

func (c *callCounter[S]) Create(ctx context.Context, spec S, token string, tags map[string]string) (string, error) {
	c.calls = append(c.calls, "Create")
	return c.Resource.Create(ctx, spec, token, tags)
}

func (c *callCounter[S]) Delete(ctx context.Context, id string) error {
	c.calls = append(c.calls, "Delete")
	return c.Resource.Delete(ctx, id)
}
