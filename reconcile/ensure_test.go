package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	crreconcile "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// wantError checks err against want, a predicate on its class (nil: no error is wanted), and reports
// whether the call succeeded, so that the case goes on with its other checks.
func wantError(t *testing.T, err error, want func(error) bool) bool {
	t.Helper()
	if want == nil {
		require.NoError(t, err)
		return true
	}
	require.Error(t, err)
	assert.True(t, want(err), "unexpected error class: %v", err)
	return false
}

// isRetried reports whether err is one controller-runtime retries with backoff: any error but a terminal one.
func isRetried(err error) bool { return err != nil && !reconcile.IsTerminal(err) }

func TestEnsure(t *testing.T) {
	ctx := t.Context()
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
				c.put("net-9", map[string]string{})
				tr.ids["vpc"] = "net-9"
				tr.persisted["vpc"] = "net-9"
			},
			wantAction: reconcile.ActionFound, wantID: "net-9", wantCalls: []string{"Get"}, wantNets: 1},
		{name: "tracked id lost, adopted by tag", spec: good, key: "vpc",
			setup: func(c *fakeCloud, tr *fakeTracker) {
				c.put("net-7", reconcile.OwnershipTags("owner1", "vpc"))
				tr.ids["vpc"] = "net-gone"
			},
			wantAction: reconcile.ActionAdopted, wantID: "net-7", wantCalls: []string{"Get", "FindByTags"}, wantNets: 1},
		{name: "other owner's resource is not adopted", spec: good, key: "vpc",
			setup:      func(c *fakeCloud, _ *fakeTracker) { c.put("net-7", reconcile.OwnershipTags("owner2", "vpc")) },
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
			res, err := reconcile.Ensure(ctx, tr, tt.key, c, reconcile.Given(tt.spec))
			assert.Equal(t, tt.wantCalls, c.calls)
			if !wantError(t, err, tt.wantErr) {
				assert.Equal(t, tt.wantNets, c.count())
				return
			}
			assert.Equal(t, tt.wantAction, res.Action)
			assert.Equal(t, tt.wantID, res.ID)
			assert.Equal(t, tt.wantNets, c.count())
			assert.Equal(t, tt.wantID, tr.persisted[tt.key], "the ID is persisted before Ensure returns")
		})
	}
}

func TestEnsureCreateWithLostResponseMakesNoDuplicate(t *testing.T) {
	ctx := t.Context()
	c, tr := newFakeCloud(), newFakeTracker()
	c.loseResponse = true
	_, err := reconcile.Ensure(ctx, tr, "vpc", c, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}))
	require.True(t, isRetried(err), "%v", err)
	require.Equal(t, 1, c.count(), "the cloud created it although the response was lost")

	res, err := reconcile.Ensure(ctx, tr, "vpc", c, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, reconcile.ActionAdopted, res.Action)
	assert.Equal(t, 1, c.count(), "no second network")
}

func TestEnsureCrashBeforeRecordMakesNoDuplicate(t *testing.T) {
	rec := &recorder{}
	ctx := reconcile.ContextWithEnv(t.Context(), reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithEventRecorder(rec)))
	c, tr := newFakeCloud(), newFakeTracker()
	tr.patchErr = errors.New("api server down")
	_, err := reconcile.Ensure(ctx, tr, "vpc", c, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}))
	require.True(t, isRetried(err), "%v", err)
	assert.ErrorContains(t, err, `cannot persist resource "vpc"`)

	// The process restarts: the in-memory ID is gone, the persisted map is empty.
	tr2 := newFakeTracker()
	res, err := reconcile.Ensure(ctx, tr2, "vpc", c, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, reconcile.ActionAdopted, res.Action)
	assert.Equal(t, 1, c.count())
	assert.Equal(t, []string{`Normal ResourceAdopted Reconcile adopted resource "vpc" (id "net-1") by its ownership tags`}, rec.all(),
		"the recovery is announced; the create before it was not")
}

func TestEnsureUsesTheSameTokenOnEveryAttempt(t *testing.T) {
	assert.Equal(t, reconcile.IdempotencyToken("k", "vpc"), reconcile.IdempotencyToken("k", "vpc"))
	assert.NotEqual(t, reconcile.IdempotencyToken("k", "vpc"), reconcile.IdempotencyToken("k", "subnet"))
	assert.NotEqual(t, reconcile.IdempotencyToken("k1", "vpc"), reconcile.IdempotencyToken("k2", "vpc"))
	assert.Len(t, reconcile.IdempotencyToken("k", "vpc"), 32)

	// A cloud that honours tokens but cannot search tags still returns the same resource.
	ctx := t.Context()
	c, tr := newFakeCloud(), newFakeTracker()
	c.loseResponse = true
	_, err := reconcile.Ensure(ctx, tr, "vpc", noTags{c}, reconcile.Given(netSpec{CIDR: "x"}))
	require.Error(t, err)
	res, err := reconcile.Ensure(ctx, tr, "vpc", noTags{c}, reconcile.Given(netSpec{CIDR: "x"}))
	require.NoError(t, err)
	assert.Equal(t, reconcile.ActionCreated, res.Action)
	assert.Equal(t, 1, c.count())
}

func TestEnsureAddsTags(t *testing.T) {
	c, tr := newFakeCloud(), newFakeTracker()
	res, err := reconcile.Ensure(t.Context(), tr, "vpc", c, reconcile.Given(netSpec{CIDR: "x"}),
		reconcile.WithTags(map[string]string{"cluster": "c1", reconcile.TagOwnershipKey: "spoofed"}))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cluster": "c1", reconcile.TagOwnershipKey: "owner1", reconcile.TagResourceKey: "vpc"}, c.nets[res.ID].Tags)
}

// noTags is a cloud whose tag search finds nothing.
type noTags struct{ *fakeCloud }

func (noTags) FindByTags(context.Context, map[string]string) (*fakeNet, bool, error) {
	return nil, false, nil
}

func TestEnsureDeleted(t *testing.T) {
	ctx := t.Context()
	c, tr := newFakeCloud(), newFakeTracker()
	c.put("net-1", reconcile.OwnershipTags("owner1", "vpc"))
	c.put("net-2", reconcile.OwnershipTags("owner1", "vpc")) // an orphan whose ID was never recorded
	c.put("net-3", reconcile.OwnershipTags("owner2", "vpc"))
	tr.ids["vpc"] = "net-1"
	for range 3 {
		res, err := reconcile.EnsureDeleted(ctx, tr, "vpc", c)
		require.NoError(t, err)
		if res.Done {
			break
		}
	}
	assert.Equal(t, 1, c.count(), "only the other owner's network is left")
	_, ok := tr.ResourceID("vpc")
	assert.False(t, ok)

	res, err := reconcile.EnsureDeleted(ctx, tr, "vpc", c)
	require.NoError(t, err)
	assert.True(t, res.Done, "deleting again is done at once")

	c.failNext["FindByTags"] = errThrottled
	_, err = reconcile.EnsureDeleted(ctx, tr, "vpc", c)
	assert.True(t, isRetried(err))
	assert.ErrorIs(t, err, errThrottled)

	tr.keyErr = scope.ErrOwnershipKeyNotPersisted
	res, err = reconcile.EnsureDeleted(ctx, tr, "vpc", c)
	require.NoError(t, err)
	assert.True(t, res.Done, "nothing can carry a key that was never persisted")
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
		{"controller-runtime TerminalError", crreconcile.TerminalError(cause), true, conditions.ReasonTerminalError},
		{"Terminal", reconcile.Terminal("InvalidImage", cause), true, "InvalidImage"},
		{"wrapped controller-runtime TerminalError", fmt.Errorf("wrap: %w", crreconcile.TerminalError(cause)), true, conditions.ReasonTerminalError},
		{"wrapped Terminal", fmt.Errorf("wrap: %w", reconcile.Terminal("InvalidImage", cause)), true, "InvalidImage"},
		{"joined with a terminal error", errors.Join(errThrottled, crreconcile.TerminalError(cause)), true, conditions.ReasonTerminalError},
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
	assert.Equal(t, conditions.ReasonTerminalError, te.Reason, "the default reason")
}

func TestEnsureObservesOnce(t *testing.T) {
	ctx := t.Context()
	c, tr := newFakeCloud(), newFakeTracker()
	created, err := reconcile.Ensure(ctx, tr, "vpc", c, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.0/16", created.Observed.CIDR, "Create's answer is the observation")
	assert.True(t, created.Result.Done)

	c.calls = nil
	found, err := reconcile.Ensure(ctx, tr, "vpc", c, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"Get"}, c.calls, "a steady state costs one cloud read")
	assert.Equal(t, created.ID, found.Observed.ID)
	assert.Equal(t, reconcile.Result{Done: true}, found.Result)
}

func TestEnsureLazySpec(t *testing.T) {
	ctx := t.Context()
	errNoData := errors.New("bootstrap data not ready")
	tests := []struct {
		name       string
		tracked    bool // a tracked network exists
		updater    bool
		spec       func(calls *int) reconcile.Spec[netSpec]
		wantCalls  int
		wantErr    func(error) bool
		wantCloud  []string
		wantAction reconcile.Action
	}{
		{name: "not computed when found", tracked: true, wantCalls: 0, wantCloud: []string{"Get"}, wantAction: reconcile.ActionFound},
		{name: "computed once to create", wantCalls: 1, wantCloud: []string{"FindByTags", "Create"}, wantAction: reconcile.ActionCreated},
		{name: "computed once to compare with an Updater", tracked: true, updater: true, wantCalls: 1,
			wantCloud: []string{"Get"}, wantAction: reconcile.ActionFound},
		{name: "invalid lazy spec is never sent", wantCalls: 1, wantCloud: []string{"FindByTags"}, wantErr: reconcile.IsTerminal,
			spec: func(calls *int) reconcile.Spec[netSpec] {
				return reconcile.Lazy(func(context.Context) (netSpec, error) { *calls++; return netSpec{}, nil })
			}},
		{name: "an error of the spec function is returned as it is", wantCalls: 1, wantCloud: []string{"FindByTags"},
			wantErr: func(err error) bool { return errors.Is(err, errNoData) && isRetried(err) },
			spec: func(calls *int) reconcile.Spec[netSpec] {
				return reconcile.Lazy(func(context.Context) (netSpec, error) { *calls++; return netSpec{}, errNoData })
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, tr := newFakeCloud(), newFakeTracker()
			if tt.tracked {
				c.put("net-1", reconcile.OwnershipTags("owner1", "vpc"))
				tr.ids["vpc"] = "net-1"
			}
			calls := 0
			spec := reconcile.Lazy(func(context.Context) (netSpec, error) { calls++; return netSpec{CIDR: "10.0.0.0/16"}, nil })
			if tt.spec != nil {
				spec = tt.spec(&calls)
			}
			var r reconcile.Resource[netSpec, *fakeNet] = c
			if tt.updater {
				r = updatable{c}
			}
			res, err := reconcile.Ensure(ctx, tr, "vpc", r, spec)
			assert.Equal(t, tt.wantCalls, calls, "spec computations")
			assert.Equal(t, tt.wantCloud, c.calls)
			if !wantError(t, err, tt.wantErr) {
				return
			}
			assert.Equal(t, tt.wantAction, res.Action)
		})
	}
}

func TestEnsureUpdatesDrift(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name       string
		cloudCIDR  string
		failUpdate error
		wantCalls  []string
		wantAction reconcile.Action
		wantResult reconcile.Result
		wantDrift  []string
		wantErr    func(error) bool
		wantCIDR   string
	}{
		{name: "up to date: no update", cloudCIDR: "10.0.0.0/16", wantCalls: []string{"Get"},
			wantAction: reconcile.ActionFound, wantResult: reconcile.Result{Done: true}, wantCIDR: "10.0.0.0/16"},
		{name: "drifted: updated in place once", cloudCIDR: "10.1.0.0/16", wantCalls: []string{"Get", "Update"},
			wantAction: reconcile.ActionUpdated, wantDrift: []string{"cidr"}, wantCIDR: "10.0.0.0/16",
			wantResult: reconcile.Result{Reason: conditions.ReasonDriftCorrected, RequeueAfter: 3 * time.Second,
				Message: `resource "vpc" (id "net-1") differed from its spec in cidr; updated in place`}},
		{name: "update failure is retried", cloudCIDR: "10.1.0.0/16", failUpdate: errThrottled, wantCalls: []string{"Get", "Update"},
			wantErr: func(err error) bool { return isRetried(err) && errors.Is(err, errThrottled) }, wantCIDR: "10.1.0.0/16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, tr := newFakeCloud(), newFakeTracker()
			c.put("net-1", reconcile.OwnershipTags("owner1", "vpc")).CIDR = tt.cloudCIDR
			tr.ids["vpc"] = "net-1"
			if tt.failUpdate != nil {
				c.failNext["Update"] = tt.failUpdate
			}
			rec := &recorder{}
			ctx := reconcile.ContextWithEnv(ctx, reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithEventRecorder(rec)))
			res, err := reconcile.Ensure(ctx, tr, "vpc", updatable{c}, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}),
				reconcile.WithPollInterval(3*time.Second))
			assert.Equal(t, tt.wantCalls, c.calls)
			assert.Equal(t, tt.wantCIDR, c.nets["net-1"].CIDR)
			assert.Equal(t, 1, c.count(), "never re-created")
			if !wantError(t, err, tt.wantErr) {
				return
			}
			assert.Equal(t, tt.wantAction, res.Action)
			assert.Equal(t, tt.wantResult, res.Result)
			assert.Equal(t, tt.wantDrift, res.Drift)
			if tt.wantAction == reconcile.ActionUpdated {
				assert.Equal(t, tt.wantCIDR, res.Observed.CIDR, "the observation is Update's answer")
				assert.Equal(t, []string{"Normal DriftCorrected"}, rec.reasons())
			}
		})
	}
}

func TestEnsureReportsWhatCannotBeUpdatedInPlace(t *testing.T) {
	c, tr := newFakeCloud(), newFakeTracker()
	c.put("net-1", reconcile.OwnershipTags("owner1", "vpc"))
	tr.ids["vpc"] = "net-1"
	rec := &recorder{}
	ctx := reconcile.ContextWithEnv(t.Context(), reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithEventRecorder(rec)))
	res, err := reconcile.Ensure(ctx, tr, "vpc", updatable{c}, reconcile.Given(netSpec{CIDR: "10.0.0.0/8"}))
	require.NoError(t, err, "not terminal: the resource still serves, and the difference may go away")
	assert.Equal(t, []string{"Get"}, c.calls, "nothing is changed, nothing deleted")
	assert.False(t, res.Result.Done)
	assert.Equal(t, conditions.ReasonNeedsReplacement, res.Result.Reason)
	assert.Equal(t, reconcile.DefaultRequeueAfter, res.Result.RequeueAfter)
	assert.Contains(t, res.Result.Message, "cidr")
	assert.Equal(t, []string{"cidr"}, res.Drift)
	assert.Equal(t, []string{"Warning NeedsReplacement"}, rec.reasons())
}

func TestEnsureWaitsForPendingResources(t *testing.T) {
	ctx := t.Context()
	c, tr := newFakeCloud(), newFakeTracker()
	c.state = "creating"
	res, err := reconcile.Ensure(ctx, tr, "vpc", withStates{c}, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}),
		reconcile.WithPollInterval(2*time.Second))
	require.NoError(t, err)
	assert.Equal(t, reconcile.ActionCreated, res.Action)
	assert.Equal(t, reconcile.Result{Reason: conditions.ReasonResourcePending, RequeueAfter: 2 * time.Second,
		Message: `resource "vpc" (id "net-1"): network is creating`}, res.Result)
	assert.Equal(t, "net-1", tr.persisted["vpc"], "the ID is persisted while the resource is pending")

	c.calls = nil
	res, err = reconcile.Ensure(ctx, tr, "vpc", withStates{c}, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"Get"}, c.calls, "waiting creates nothing")
	assert.False(t, res.Result.Done)
	assert.Equal(t, "creating", res.Observed.State, "the observation is there while pending")

	c.nets["net-1"].State = ""
	res, err = reconcile.Ensure(ctx, tr, "vpc", withStates{c}, reconcile.Given(netSpec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.True(t, res.Result.Done)
}

func TestEnsureDeletedWaitsForSlowDeletes(t *testing.T) {
	ctx := t.Context()
	c, tr := newFakeCloud(), newFakeTracker()
	c.put("net-1", reconcile.OwnershipTags("owner1", "vpc")).State = "deleting-slowly"
	tr.ids["vpc"] = "net-1"
	res, err := reconcile.EnsureDeleted(ctx, tr, "vpc", withStates{c}, reconcile.WithPollInterval(time.Second))
	require.NoError(t, err)
	assert.Equal(t, reconcile.Result{Reason: conditions.ReasonDeleting, RequeueAfter: time.Second,
		Message: `resource "vpc" (id "net-1"): network is deleting`}, res)
	_, tracked := tr.ResourceID("vpc")
	assert.True(t, tracked, "the ID is kept until the resource is gone")

	delete(c.nets, "net-1") // the cloud finishes the delete
	res, err = reconcile.EnsureDeleted(ctx, tr, "vpc", withStates{c})
	require.NoError(t, err)
	assert.True(t, res.Done)
	_, tracked = tr.ResourceID("vpc")
	assert.False(t, tracked)
}

func TestEnsureCreateOnce(t *testing.T) {
	ctx := t.Context()
	c, tr := newFakeCloud(), newFakeTracker()
	spec := reconcile.Given(netSpec{CIDR: "10.0.0.0/16"})
	created, err := reconcile.Ensure(ctx, tr, "server", c, spec, reconcile.CreateOnce())
	require.NoError(t, err)
	require.Equal(t, reconcile.ActionCreated, created.Action, "the first Ensure creates")

	found, err := reconcile.Ensure(ctx, tr, "server", c, spec, reconcile.CreateOnce())
	require.NoError(t, err)
	assert.Equal(t, reconcile.ActionFound, found.Action)

	delete(c.nets, created.ID)                                      // deleted out of band
	c.put("net-other", reconcile.OwnershipTags("owner1", "server")) // would be adopted without CreateOnce
	c.calls = nil
	_, err = reconcile.Ensure(ctx, tr, "server", c, spec, reconcile.CreateOnce())
	require.Error(t, err)
	assert.Equal(t, conditions.ReasonResourceDeleted, reconcile.TerminalReason(err), "%v", err)
	assert.Contains(t, err.Error(), created.ID, "the error names the resource that is gone")
	assert.Equal(t, []string{"Get"}, c.calls, "neither adopted nor created again")
	id, _ := tr.ResourceID("server")
	assert.Equal(t, created.ID, id, "the gone ID stays recorded for the user to see")
}

// staleSearch is the fake cloud whose search still lists a deleted network once, as an eventually consistent
// list API does.
type staleSearch struct {
	*fakeCloud
	ghost *fakeNet
}

func (s *staleSearch) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	s.ghost = clone(s.nets[id])
	s.mu.Unlock()
	return s.fakeCloud.Delete(ctx, id)
}

func (s *staleSearch) FindByTags(ctx context.Context, tags map[string]string) (*fakeNet, bool, error) {
	if g := s.ghost; g != nil {
		s.ghost = nil
		return g, true, nil
	}
	return s.fakeCloud.FindByTags(ctx, tags)
}

// TestEnsureDeletedRemovesEveryTaggedDuplicate: a cloud without idempotency tokens can hold several resources
// with the ownership tags; EnsureDeleted is done only once a search finds none, deleting at most
// MaxTaggedDeletes of them per call.
func TestEnsureDeletedRemovesEveryTaggedDuplicate(t *testing.T) {
	tests := []struct {
		name       string
		duplicates int
		tracked    bool
		stale      bool
		wantCalls  []bool // Done of each call until the last
	}{
		{name: "3 untracked duplicates", duplicates: 3, wantCalls: []bool{true}},
		{name: "3 duplicates, one tracked", duplicates: 3, tracked: true, wantCalls: []bool{true}},
		{name: "more than the bound", duplicates: reconcile.MaxTaggedDeletes + 2, wantCalls: []bool{false, true}},
		{name: "a search that lags behind each delete", duplicates: 2, stale: true, wantCalls: []bool{false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			c, tr := newFakeCloud(), newFakeTracker()
			for i := range tt.duplicates {
				c.put(fmt.Sprintf("net-%d", i), reconcile.OwnershipTags("owner1", "vpc"))
			}
			c.put("other", reconcile.OwnershipTags("owner2", "vpc"))
			if tt.tracked {
				tr.ids["vpc"] = "net-1"
			}
			var r reconcile.Resource[netSpec, *fakeNet] = c
			if tt.stale {
				r = &staleSearch{fakeCloud: c}
			}
			for i, wantDone := range tt.wantCalls {
				res, err := reconcile.EnsureDeleted(ctx, tr, "vpc", r, reconcile.WithPollInterval(time.Second))
				require.NoError(t, err)
				require.Equal(t, wantDone, res.Done, "call %d: %+v", i, res)
				if !wantDone {
					assert.Equal(t, conditions.ReasonDeleting, res.Reason)
					assert.Equal(t, time.Second, res.RequeueAfter)
					if !tt.stale {
						assert.Positive(t, c.count()-1, "call %d: not done while a tagged network exists", i)
					}
				}
				if tt.duplicates > reconcile.MaxTaggedDeletes && i == 0 {
					assert.Equal(t, tt.duplicates-reconcile.MaxTaggedDeletes, c.count()-1, "at most MaxTaggedDeletes deletes per call")
				}
			}
			assert.Equal(t, 1, c.count(), "only the other owner's network is left")
			_, ok := tr.ResourceID("vpc")
			assert.False(t, ok)
		})
	}
}
