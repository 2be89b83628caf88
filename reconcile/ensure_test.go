package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// isRetried reports whether err is one controller-runtime retries with backoff: any error but a terminal one.
func isRetried(err error) bool { return err != nil && !reconcile.IsTerminal(err) }

func TestEnsure(t *testing.T) {
	ctx := context.Background()
	good := netSpec{CIDR: "10.0.0.0/16"}
	tests := []struct {
		name       string
		setup      func(c *fakeCloud, tr *fakeTracker)
		spec       netSpec
		key        string
		wantAction reconcile.Action
		wantID     string
		wantErr    func(error) bool
		wantCalls  []string
		wantNets   int
	}{
		{name: "creates when nothing exists", spec: good, key: "vpc", wantAction: reconcile.ActionCreated, wantID: "net-1",
			wantCalls: []string{"FindByTags", "Create"}, wantNets: 1},
		{name: "tracked id still exists", spec: good, key: "vpc",
			setup: func(c *fakeCloud, tr *fakeTracker) {
				c.nets["net-9"] = map[string]string{}
				tr.ids["vpc"] = "net-9"
				tr.persisted["vpc"] = "net-9"
			},
			wantAction: reconcile.ActionFound, wantID: "net-9", wantCalls: []string{"Get"}, wantNets: 1},
		{name: "tracked id lost, adopted by tag", spec: good, key: "vpc",
			setup: func(c *fakeCloud, tr *fakeTracker) {
				c.nets["net-7"] = reconcile.OwnershipTags("owner1", "vpc")
				tr.ids["vpc"] = "net-gone"
			},
			wantAction: reconcile.ActionAdopted, wantID: "net-7", wantCalls: []string{"Get", "FindByTags"}, wantNets: 1},
		{name: "other owner's resource is not adopted", spec: good, key: "vpc",
			setup:      func(c *fakeCloud, _ *fakeTracker) { c.nets["net-7"] = reconcile.OwnershipTags("owner2", "vpc") },
			wantAction: reconcile.ActionCreated, wantID: "net-1", wantCalls: []string{"FindByTags", "Create"}, wantNets: 2},
		{name: "invalid parameters never reach the cloud", spec: netSpec{}, key: "vpc",
			wantErr: reconcile.IsTerminal, wantNets: 0},
		{name: "invalid key", spec: good, key: "Bad Key", wantErr: reconcile.IsTerminal},
		{name: "ownership key not persisted", spec: good, key: "vpc",
			setup:   func(_ *fakeCloud, tr *fakeTracker) { tr.keyErr = scope.ErrOwnershipKeyNotPersisted },
			wantErr: func(err error) bool { return errors.Is(err, scope.ErrOwnershipKeyNotPersisted) }},
		{name: "cloud error is retried", spec: good, key: "vpc",
			setup:     func(c *fakeCloud, _ *fakeTracker) { c.failNext["FindByTags"] = errThrottled },
			wantErr:   func(err error) bool { return isRetried(err) && errors.Is(err, errThrottled) },
			wantCalls: []string{"FindByTags"}},
		{name: "terminal cloud error keeps its class", spec: good, key: "vpc",
			setup: func(c *fakeCloud, _ *fakeTracker) {
				c.failNext["Create"] = reconcile.Terminal("QuotaExceeded", errors.New("quota"))
			},
			wantErr: reconcile.IsTerminal, wantCalls: []string{"FindByTags", "Create"}},
		{name: "get error", spec: good, key: "vpc",
			setup: func(c *fakeCloud, tr *fakeTracker) {
				tr.ids["vpc"] = "net-1"
				c.failNext["Get"] = errors.New("timeout")
			},
			wantErr: isRetried, wantCalls: []string{"Get"}},
		{name: "controller-runtime terminal cloud error keeps its class", spec: good, key: "vpc",
			setup: func(c *fakeCloud, _ *fakeTracker) {
				c.failNext["Create"] = crreconcile.TerminalError(errors.New("bad flavor"))
			},
			wantErr: reconcile.IsTerminal, wantCalls: []string{"FindByTags", "Create"}},
		{name: "empty id from the cloud", spec: good, key: "vpc",
			setup:   func(c *fakeCloud, _ *fakeTracker) { c.emptyID = true },
			wantErr: isRetried, wantCalls: []string{"FindByTags", "Create"}, wantNets: 1},
		{name: "checkpoint error", spec: good, key: "vpc",
			setup:   func(_ *fakeCloud, tr *fakeTracker) { tr.patchErr = errors.New("api server down") },
			wantErr: isRetried, wantCalls: []string{"FindByTags", "Create"}, wantNets: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, tr := newFakeCloud(), newFakeTracker()
			if tt.setup != nil {
				tt.setup(c, tr)
			}
			res, err := reconcile.Ensure(ctx, tr, tt.key, reconcile.Resource[netSpec](c), tt.spec)
			assert.Equal(t, tt.wantCalls, c.calls)
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.True(t, tt.wantErr(err), "unexpected error class: %v", err)
				assert.Equal(t, tt.wantNets, c.count())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantAction, res.Action)
			assert.Equal(t, tt.wantID, res.ID)
			assert.Equal(t, tt.wantNets, c.count())
			assert.Equal(t, tt.wantID, tr.persisted[tt.key], "the ID is persisted before Ensure returns")
		})
	}
}

func TestEnsureCreateWithLostResponseMakesNoDuplicate(t *testing.T) {
	ctx := context.Background()
	c, tr := newFakeCloud(), newFakeTracker()
	c.loseResponse = true
	_, err := reconcile.Ensure(ctx, tr, "vpc", reconcile.Resource[netSpec](c), netSpec{CIDR: "10.0.0.0/16"})
	require.True(t, isRetried(err), "%v", err)
	require.Equal(t, 1, c.count(), "the cloud created it although the response was lost")

	res, err := reconcile.Ensure(ctx, tr, "vpc", reconcile.Resource[netSpec](c), netSpec{CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
	assert.Equal(t, reconcile.ActionAdopted, res.Action)
	assert.Equal(t, 1, c.count(), "no second network")
}

func TestEnsureCrashBeforeRecordMakesNoDuplicate(t *testing.T) {
	ctx := context.Background()
	c, tr := newFakeCloud(), newFakeTracker()
	tr.patchErr = errors.New("api server down")
	_, err := reconcile.Ensure(ctx, tr, "vpc", reconcile.Resource[netSpec](c), netSpec{CIDR: "10.0.0.0/16"})
	require.True(t, isRetried(err), "%v", err)
	assert.ErrorContains(t, err, `cannot persist resource "vpc"`)

	// The process restarts: the in-memory ID is gone, the persisted map is empty.
	tr2 := newFakeTracker()
	res, err := reconcile.Ensure(ctx, tr2, "vpc", reconcile.Resource[netSpec](c), netSpec{CIDR: "10.0.0.0/16"})
	require.NoError(t, err)
	assert.Equal(t, reconcile.ActionAdopted, res.Action)
	assert.Equal(t, 1, c.count())
}

func TestEnsureUsesTheSameTokenOnEveryAttempt(t *testing.T) {
	assert.Equal(t, reconcile.IdempotencyToken("k", "vpc"), reconcile.IdempotencyToken("k", "vpc"))
	assert.NotEqual(t, reconcile.IdempotencyToken("k", "vpc"), reconcile.IdempotencyToken("k", "subnet"))
	assert.NotEqual(t, reconcile.IdempotencyToken("k1", "vpc"), reconcile.IdempotencyToken("k2", "vpc"))
	assert.Len(t, reconcile.IdempotencyToken("k", "vpc"), 32)

	// A cloud that honours tokens but cannot search tags still returns the same resource.
	ctx := context.Background()
	c, tr := newFakeCloud(), newFakeTracker()
	c.loseResponse = true
	_, err := reconcile.Ensure(ctx, tr, "vpc", noTags{c}, netSpec{CIDR: "x"})
	require.Error(t, err)
	res, err := reconcile.Ensure(ctx, tr, "vpc", noTags{c}, netSpec{CIDR: "x"})
	require.NoError(t, err)
	assert.Equal(t, reconcile.ActionCreated, res.Action)
	assert.Equal(t, 1, c.count())
}

func TestEnsureAddsTags(t *testing.T) {
	c, tr := newFakeCloud(), newFakeTracker()
	res, err := reconcile.Ensure(context.Background(), tr, "vpc", reconcile.Resource[netSpec](c), netSpec{CIDR: "x"},
		reconcile.WithTags(map[string]string{"cluster": "c1", reconcile.TagOwnershipKey: "spoofed"}))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cluster": "c1", reconcile.TagOwnershipKey: "owner1", reconcile.TagResourceKey: "vpc"}, c.nets[res.ID])
}

// noTags is a cloud whose tag search finds nothing.
type noTags struct{ *fakeCloud }

func (noTags) FindByTags(context.Context, map[string]string) (string, bool, error) {
	return "", false, nil
}

func TestEnsureDeleted(t *testing.T) {
	ctx := context.Background()
	c, tr := newFakeCloud(), newFakeTracker()
	c.nets["net-1"] = reconcile.OwnershipTags("owner1", "vpc")
	c.nets["net-2"] = reconcile.OwnershipTags("owner1", "vpc") // an orphan whose ID was never recorded
	c.nets["net-3"] = reconcile.OwnershipTags("owner2", "vpc")
	tr.ids["vpc"] = "net-1"
	for range 3 {
		done, err := reconcile.EnsureDeleted(ctx, tr, "vpc", reconcile.Resource[netSpec](c))
		require.NoError(t, err)
		if done {
			break
		}
	}
	assert.Equal(t, 1, c.count(), "only the other owner's network is left")
	_, ok := tr.ResourceID("vpc")
	assert.False(t, ok)

	done, err := reconcile.EnsureDeleted(ctx, tr, "vpc", reconcile.Resource[netSpec](c))
	require.NoError(t, err)
	assert.True(t, done, "deleting again is done at once")

	c.failNext["FindByTags"] = errThrottled
	_, err = reconcile.EnsureDeleted(ctx, tr, "vpc", reconcile.Resource[netSpec](c))
	assert.True(t, isRetried(err))
	assert.ErrorIs(t, err, errThrottled)

	tr.keyErr = scope.ErrOwnershipKeyNotPersisted
	done, err = reconcile.EnsureDeleted(ctx, tr, "vpc", reconcile.Resource[netSpec](c))
	require.NoError(t, err)
	assert.True(t, done, "nothing can carry a key that was never persisted")
}

var errThrottled = errors.New("throttled")

func TestIsTerminal(t *testing.T) {
	cause := errors.New("bad flavor")
	tests := []struct {
		name       string
		err        error
		want       bool
		wantReason string
	}{
		{"controller-runtime TerminalError", crreconcile.TerminalError(cause), true, reconcile.ReasonTerminalError},
		{"Terminal", reconcile.Terminal("InvalidImage", cause), true, "InvalidImage"},
		{"wrapped controller-runtime TerminalError", fmt.Errorf("wrap: %w", crreconcile.TerminalError(cause)), true, reconcile.ReasonTerminalError},
		{"wrapped Terminal", fmt.Errorf("wrap: %w", reconcile.Terminal("InvalidImage", cause)), true, "InvalidImage"},
		{"joined with a terminal error", errors.Join(errThrottled, crreconcile.TerminalError(cause)), true, reconcile.ReasonTerminalError},
		{"plain error", cause, false, ""},
		{"wrapped plain error", fmt.Errorf("wrap: %w", cause), false, ""},
		{"nil", nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, reconcile.IsTerminal(tt.err))
			assert.Equal(t, tt.wantReason, reconcile.TerminalReason(tt.err))
		})
	}
}

func TestTerminal(t *testing.T) {
	cause := errors.New("image \"x\" does not exist")
	assert.Nil(t, reconcile.Terminal("InvalidImage", nil), "a nil error stays nil")

	err := reconcile.Terminal("InvalidImage", cause)
	assert.ErrorIs(t, err, cause)
	assert.ErrorIs(t, err, crreconcile.TerminalError(nil), "controller-runtime sees it as terminal too")
	assert.Equal(t, `terminal error (InvalidImage): image "x" does not exist`, err.Error())
	var te *reconcile.TerminalError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "InvalidImage", te.Reason)

	require.ErrorAs(t, reconcile.Terminal("", cause), &te)
	assert.Equal(t, reconcile.ReasonTerminalError, te.Reason, "the default reason")
}
