package ensure

import (
	"context"
	"fmt"
	"strings"

	"github.com/capkit/capkit/metrics"
	"github.com/capkit/capkit/reconcile/step"
)

// Kinded is implemented by a Resource that names the kind of cloud resource it manages ("network",
// "instance"): the resource label of capkit's metrics. Without it the label is the Exists key.
type Kinded interface {
	Kind() string
}

// Cloud operations, the operation label of capkit's metrics.
const (
	opGet    = "get"
	opFind   = "find"
	opCreate = "create"
	opUpdate = "update"
	opDelete = "delete"
	opPoll   = "poll"
)

// metered is a Resource whose cloud calls wait for the rate limiter of the reconcile (Env.Wait) and are
// recorded in capkit's metrics. Exists calls through it; type assertions (Updater, PendingReporter) use the
// original.
type metered[S, O any] struct {
	Resource[S, O]
	kind string
}

func meter[S, O any](r Resource[S, O], key string) *metered[S, O] {
	kind := key
	if k, ok := r.(Kinded); ok && k.Kind() != "" {
		kind = k.Kind()
	}
	return &metered[S, O]{Resource: r, kind: kind}
}

// call runs fn as one cloud call of m's kind (see the package function call); notFound tells a successful call
// that found nothing.
func (m *metered[S, O]) call(ctx context.Context, op string, fn func() (notFound bool, err error)) error {
	return call(ctx, m.kind, op, fn)
}

func (m *metered[S, O]) Get(ctx context.Context, id string) (obs O, found bool, err error) {
	err = m.call(ctx, opGet, func() (bool, error) {
		obs, found, err = m.Resource.Get(ctx, id)
		return !found, err
	})
	return obs, found, err
}

func (m *metered[S, O]) FindByTags(ctx context.Context, tags map[string]string) (obs O, found bool, err error) {
	err = m.call(ctx, opFind, func() (bool, error) {
		obs, found, err = m.Resource.FindByTags(ctx, tags)
		return !found, err
	})
	return obs, found, err
}

func (m *metered[S, O]) Create(ctx context.Context, spec S, token string, tags map[string]string) (obs O, err error) {
	err = m.call(ctx, opCreate, func() (bool, error) {
		obs, err = m.Resource.Create(ctx, spec, token, tags)
		return false, err
	})
	return obs, err
}

func (m *metered[S, O]) Delete(ctx context.Context, id string) error {
	return m.call(ctx, opDelete, func() (bool, error) { return false, m.Resource.Delete(ctx, id) })
}

// pollOperation reads a create operation through the limiter and the metrics; a Resource that is no
// OperationPoller cannot have one.
func (m *metered[S, O]) pollOperation(ctx context.Context, op string) (obs O, done bool, err error) {
	p, ok := m.Resource.(OperationPoller[O])
	if !ok {
		return obs, false, fmt.Errorf("cannot read operation %q: the Resource returned Accepted from Create but is no OperationPoller", op)
	}
	err = m.call(ctx, opPoll, func() (bool, error) {
		obs, done, err = p.PollOperation(ctx, op)
		return false, err
	})
	return obs, done, err
}

// update calls u.Update through the limiter and the metrics.
func (m *metered[S, O]) update(ctx context.Context, u Updater[S, O], id string, spec S, obs O) (out O, err error) {
	err = m.call(ctx, opUpdate, func() (bool, error) {
		out, err = u.Update(ctx, id, spec, obs)
		return false, err
	})
	return out, err
}

// action records what Exists or Deleted did; a change in the cloud is progress of the reconcile.
func (m *metered[S, O]) action(ctx context.Context, a Action) {
	metrics.EnsureActions.WithLabelValues(m.kind, strings.ToLower(string(a))).Inc()
	if a != ActionFound {
		step.RecordChange(ctx)
	}
}
