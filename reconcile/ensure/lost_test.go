package ensure_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// lostCloud is a cloud without tokens whose search lags an hour, with one create operation, "op-1", started by a
// first attempt whose handle was lost; outcome is how it ended ("" still runs, "failed", or the VM it made).
type lostCloud struct {
	outcome string
	finder  bool // the Resource can find an operation by its token
	known   bool // the cloud still knows op-1
	creates int
	finds   []string // the tokens FindOperation was asked for
}

func (c *lostCloud) resource() ensure.Resource[string, *string] {
	f := ensure.ResourceFuncs[string, *string]{
		GetFunc: func(_ context.Context, id string) (*string, bool, error) { return &id, id == c.outcome, nil },
		FindByTagsFunc: func(context.Context, map[string]string) (*string, bool, error) {
			return nil, false, nil // the search lags: it never lists the VM within the test
		},
		CreateFunc: func(context.Context, string, string, map[string]string) (*string, error) {
			c.creates++
			return nil, ensure.Accepted(fmt.Sprintf("op-%d", c.creates+1))
		},
		PollOperationFunc: func(_ context.Context, op string) (*string, bool, error) {
			switch {
			case op != "op-1":
				return nil, false, nil
			case c.outcome == "":
				return nil, false, nil
			case c.outcome == "failed":
				return nil, false, fmt.Errorf("clone failed: %w", ensure.ErrOperationFailed)
			}
			return &c.outcome, true, nil
		},
		DeleteFunc: func(_ context.Context, id string) error {
			if id == c.outcome {
				c.outcome = "deleted"
			}
			return nil
		},
		IDFunc:     func(id *string) string { return *id },
		Guarantees: ensure.Guarantees{Idempotency: ensure.NotIdempotent, SearchLag: time.Hour},
	}
	if c.finder {
		f.FindOperationFunc = func(_ context.Context, token string, _ time.Time) (string, bool, error) {
			c.finds = append(c.finds, token)
			return "op-1", c.known, nil
		}
	}
	return ensure.NewResource(f)
}

// lostHandle returns a tracker whose note says a create started a minute before now, without its handle: the
// manager stopped between the create call and the checkpoint of its operation.
func lostHandle(t *testing.T, now time.Time) *scopetest.Tracker {
	tr := scopetest.NewTracker("owner")
	require.NoError(t, tr.SetPending("vm", "create "+now.Add(-time.Minute).UTC().Format(time.RFC3339Nano)))
	return tr
}

// OperationFinder doc: "then read the operation instead of waiting out the search lag: a create that failed is
// known at once. A finder that finds nothing changes nothing".
func TestALostOperationIsFoundByItsToken(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := ensure.WithClock(func() time.Time { return now })
	token := ensure.IdempotencyToken("owner", "vm")
	tests := []struct {
		name        string
		cloud       lostCloud
		wantCreates int    // Exists: creates made by the reconcile
		wantID      string // Exists: the recorded ID, adopted
		wantNote    string // Exists: the note after the reconcile
		wantDeleted bool   // Deleted: done at once
		wantReason  string // Deleted: the reason of its wait
	}{
		{name: "the lost create failed: Exists creates again, Deleted is done at once",
			cloud: lostCloud{outcome: "failed", finder: true, known: true}, wantCreates: 1, wantNote: "operation", wantDeleted: true},
		{name: "the lost create made its VM: Exists records it, Deleted deletes it",
			cloud: lostCloud{outcome: "vm-1", finder: true, known: true}, wantID: "vm-1", wantDeleted: true},
		{name: "the lost create still runs: both wait for its operation",
			cloud: lostCloud{finder: true, known: true}, wantNote: "recovered-operation", wantReason: conditions.ReasonDeleting},
		{name: "the cloud no longer knows it: both wait out the search lag, as without a finder",
			cloud: lostCloud{outcome: "failed", finder: true}, wantNote: "create", wantReason: conditions.ReasonDeleting},
		{name: "no finder: both wait out the search lag",
			cloud: lostCloud{outcome: "failed"}, wantNote: "create", wantReason: conditions.ReasonDeleting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c := tt.cloud
			tr := lostHandle(t, now)
			out, err := ensure.Exists(ctx, tr, "vm", c.resource(), ensure.Given("spec"), clock)
			require.NoError(t, err)
			assert.Equal(t, tt.wantCreates, c.creates)
			assert.Equal(t, tt.wantID, out.ID)
			if tt.wantID != "" {
				assert.Equal(t, ensure.ActionAdopted, out.Action, "made by an earlier attempt whose outcome was not recorded")
			}
			note, _ := tr.Pending("vm")
			if tt.wantNote == "" {
				assert.Empty(t, note)
			} else {
				assert.Regexp(t, "^"+tt.wantNote+" ", note)
			}
			if c.finder {
				assert.Equal(t, token, c.finds[0], "the operation is looked for by the create's token")
			}

			c = tt.cloud
			tr = lostHandle(t, now)
			res, err := ensure.Deleted(ctx, tr, "vm", c.resource(), clock)
			require.NoError(t, err)
			assert.Equal(t, tt.wantDeleted, res.Done, "%+v", res)
			assert.Equal(t, tt.wantReason, res.Reason)
			if tt.wantID != "" {
				assert.Equal(t, "deleted", c.outcome, "what the lost create made is deleted")
			}
			assert.Zero(t, c.creates, "a delete creates nothing")
		})
	}
}

// A finder that fails is a failure to read, retried: the step neither creates nor concludes "gone".
func TestAFinderErrorIsRetried(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	res := ensure.NewResource(ensure.ResourceFuncs[string, *string]{
		GetFunc:           func(context.Context, string) (*string, bool, error) { return nil, false, nil },
		FindByTagsFunc:    func(context.Context, map[string]string) (*string, bool, error) { return nil, false, nil },
		CreateFunc:        func(context.Context, string, string, map[string]string) (*string, error) { panic("no create") },
		PollOperationFunc: func(context.Context, string) (*string, bool, error) { return nil, false, nil },
		FindOperationFunc: func(context.Context, string, time.Time) (string, bool, error) {
			return "", false, errors.New("task manager unavailable")
		},
		DeleteFunc: func(context.Context, string) error { return nil },
		IDFunc:     func(id *string) string { return *id },
		Guarantees: ensure.Guarantees{SearchLag: time.Hour},
	})
	var tr scope.ResourceTracker = lostHandle(t, now)
	_, err := ensure.Exists(context.Background(), tr, "vm", res, ensure.Given("spec"), ensure.WithClock(func() time.Time { return now }))
	require.ErrorContains(t, err, `cannot find the create operation of resource "vm": task manager unavailable`)
	r, err := ensure.Deleted(context.Background(), tr, "vm", res, ensure.WithClock(func() time.Time { return now }))
	require.ErrorContains(t, err, "task manager unavailable")
	assert.False(t, r.Done)
}
