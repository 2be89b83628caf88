package ensure_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope/scopetest"
)

// An asynchronous cloud with tokens and a lagging search: the create's operation is "op-1"; a second Create
// with the same token answers with the same operation; the search lists nothing yet.
func TestRecoveryThroughTheTokenOfAnAsynchronousCreateIsAdoption(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	creates := 0
	res := ensure.NewResource(ensure.ResourceFuncs[string, *string]{
		GetFunc:        func(context.Context, string) (*string, bool, error) { return nil, false, nil },
		FindByTagsFunc: func(context.Context, map[string]string) (*string, bool, error) { return nil, false, nil },
		CreateFunc: func(context.Context, string, string, map[string]string) (*string, error) {
			creates++
			return nil, ensure.Accepted("op-1")
		},
		PollOperationFunc: func(context.Context, string) (*string, bool, error) { id := "vm-1"; return &id, true, nil },
		DeleteFunc:        func(context.Context, string) error { return nil },
		IDFunc:            func(id *string) string { return *id },
		Guarantees:        ensure.Guarantees{Idempotency: ensure.IdempotentByToken, SearchLag: time.Minute},
	})
	tr := scopetest.NewTracker("owner")
	clock := ensure.WithClock(func() time.Time { return now })
	// First attempt: the create is noted, called, and the controller dies before the operation is persisted.
	crash := ensure.NewResource(ensure.ResourceFuncs[string, *string]{
		GetFunc:        func(context.Context, string) (*string, bool, error) { return nil, false, nil },
		FindByTagsFunc: func(context.Context, map[string]string) (*string, bool, error) { return nil, false, nil },
		CreateFunc: func(context.Context, string, string, map[string]string) (*string, error) {
			creates++
			tr.FailNextPatch(assert.AnError)
			return nil, ensure.Accepted("op-1")
		},
		IDFunc:     func(id *string) string { return *id },
		Guarantees: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, SearchLag: time.Minute},
	})
	_, err := ensure.Exists(ctx, tr, "vm", crash, ensure.Given("spec"), clock)
	require.ErrorIs(t, err, assert.AnError)

	restarted := tr.Restart()
	out, err := ensure.Exists(ctx, restarted, "vm", res, ensure.Given("spec"), clock) // the token answers with op-1
	require.NoError(t, err)
	require.False(t, out.Result.Done)
	out, err = ensure.Exists(ctx, restarted, "vm", res, ensure.Given("spec"), clock) // op-1 is done
	require.NoError(t, err)
	assert.Equal(t, 2, creates)
	assert.Equal(t, "vm-1", out.ID)
	assert.Equal(t, ensure.ActionAdopted, out.Action, "the resource of the first create, answered through its token, is adopted")
}

// Accepted doc: "An Update or Delete may return it too: Exists and Deleted then wait for the resource".
// Accepted doc: "An Update or Delete may return it too: Exists and Deleted then wait for the resource".
func TestExistsWaitsForAnAcceptedUpdate(t *testing.T) {
	ctx := context.Background()
	res := ensure.NewResource(ensure.ResourceFuncs[string, *string]{
		GetFunc:        func(context.Context, string) (*string, bool, error) { v := "old"; return &v, true, nil },
		FindByTagsFunc: func(context.Context, map[string]string) (*string, bool, error) { return nil, false, nil },
		CreateFunc:     func(context.Context, string, string, map[string]string) (*string, error) { return nil, nil },
		DeleteFunc:     func(context.Context, string) error { return nil },
		IDFunc:         func(*string) string { return "vm-1" },
		DiffFunc: func(spec string, obs *string) ([]string, bool) {
			if spec != *obs {
				return []string{"size"}, false
			}
			return nil, false
		},
		UpdateFunc: func(context.Context, string, string, *string) (*string, error) { return nil, ensure.Accepted("op-upd") },
		Guarantees: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true},
	})
	tr := scopetest.NewTracker("owner")
	require.NoError(t, tr.SetResourceID("vm", "vm-1"))
	out, err := ensure.Exists(ctx, tr, "vm", res, ensure.Given("new"))
	require.NoError(t, err, "an accepted update is waited for")
	assert.False(t, out.Result.Done)
}

func TestDeletedWaitsForAnAcceptedDelete(t *testing.T) {
	ctx := context.Background()
	gone := false
	res := ensure.NewResource(ensure.ResourceFuncs[string, *string]{
		GetFunc:        func(context.Context, string) (*string, bool, error) { id := "vm-1"; return &id, !gone, nil },
		FindByTagsFunc: func(context.Context, map[string]string) (*string, bool, error) { return nil, false, nil },
		CreateFunc:     func(context.Context, string, string, map[string]string) (*string, error) { return nil, nil },
		DeleteFunc:     func(context.Context, string) error { return ensure.Accepted("op-del") },
		IDFunc:         func(id *string) string { return *id },
		Guarantees:     ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true},
	})
	tr := scopetest.NewTracker("owner")
	require.NoError(t, tr.SetResourceID("vm", "vm-1"))
	r, err := ensure.Deleted(ctx, tr, "vm", res)
	require.NoError(t, err, "an accepted delete is waited for")
	assert.False(t, r.Done)
}
