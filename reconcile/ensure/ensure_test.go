package ensure_test

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
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
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
func isRetried(err error) bool { return err != nil && !step.IsTerminal(err) }

func TestEnsure(t *testing.T) {
	ctx := t.Context()
	good := fakecloud.Spec{CIDR: "10.0.0.0/16"}
	tests := []struct {
		name       string
		setup      func(c *fakecloud.Cloud, tr *fakecloud.Tracker)
		spec       fakecloud.Spec
		key        string
		wantAction ensure.Action
		wantID     string
		wantErr    func(error) bool
		wantCalls  []string
		wantNets   int
	}{
		{name: "creates when nothing exists", spec: good, key: "vpc", wantAction: ensure.ActionCreated, wantID: "net-1",
			wantCalls: []string{"FindByTags", "Create"}, wantNets: 1},
		{name: "tracked id still exists", spec: good, key: "vpc",
			setup: func(c *fakecloud.Cloud, tr *fakecloud.Tracker) {
				c.Put("net-9", map[string]string{})
				tr.IDs["vpc"] = "net-9"
				tr.Persisted["vpc"] = "net-9"
			},
			wantAction: ensure.ActionFound, wantID: "net-9", wantCalls: []string{"Get"}, wantNets: 1},
		{name: "tracked id lost, adopted by tag", spec: good, key: "vpc",
			setup: func(c *fakecloud.Cloud, tr *fakecloud.Tracker) {
				c.Put("net-7", ensure.OwnershipTags("owner1", "vpc"))
				tr.IDs["vpc"] = "net-gone"
			},
			wantAction: ensure.ActionAdopted, wantID: "net-7", wantCalls: []string{"Get", "FindByTags"}, wantNets: 1},
		{name: "other owner's resource is not adopted", spec: good, key: "vpc",
			setup:      func(c *fakecloud.Cloud, _ *fakecloud.Tracker) { c.Put("net-7", ensure.OwnershipTags("owner2", "vpc")) },
			wantAction: ensure.ActionCreated, wantID: "net-1", wantCalls: []string{"FindByTags", "Create"}, wantNets: 2},
		{name: "invalid parameters never reach the cloud", spec: fakecloud.Spec{}, key: "vpc",
			wantErr: step.IsTerminal, wantNets: 0},
		{name: "invalid key", spec: good, key: "Bad Key", wantErr: step.IsTerminal},
		{name: "ownership key not persisted", spec: good, key: "vpc",
			setup:   func(_ *fakecloud.Cloud, tr *fakecloud.Tracker) { tr.KeyErr = scope.ErrOwnershipKeyNotPersisted },
			wantErr: func(err error) bool { return errors.Is(err, scope.ErrOwnershipKeyNotPersisted) }},
		{name: "cloud error is retried", spec: good, key: "vpc",
			setup:     func(c *fakecloud.Cloud, _ *fakecloud.Tracker) { c.FailNext["FindByTags"] = errThrottled },
			wantErr:   func(err error) bool { return isRetried(err) && errors.Is(err, errThrottled) },
			wantCalls: []string{"FindByTags"}},
		{name: "terminal cloud error keeps its class", spec: good, key: "vpc",
			setup: func(c *fakecloud.Cloud, _ *fakecloud.Tracker) {
				c.FailNext["Create"] = step.Terminal("QuotaExceeded", errors.New("quota"))
			},
			wantErr: step.IsTerminal, wantCalls: []string{"FindByTags", "Create"}},
		{name: "get error", spec: good, key: "vpc",
			setup: func(c *fakecloud.Cloud, tr *fakecloud.Tracker) {
				tr.IDs["vpc"] = "net-1"
				c.FailNext["Get"] = errors.New("timeout")
			},
			wantErr: isRetried, wantCalls: []string{"Get"}},
		{name: "controller-runtime terminal cloud error keeps its class", spec: good, key: "vpc",
			setup: func(c *fakecloud.Cloud, _ *fakecloud.Tracker) {
				c.FailNext["Create"] = crreconcile.TerminalError(errors.New("bad flavor"))
			},
			wantErr: step.IsTerminal, wantCalls: []string{"FindByTags", "Create"}},
		{name: "empty id from the cloud", spec: good, key: "vpc",
			setup:   func(c *fakecloud.Cloud, _ *fakecloud.Tracker) { c.EmptyID = true },
			wantErr: isRetried, wantCalls: []string{"FindByTags", "Create"}, wantNets: 1},
		{name: "checkpoint error", spec: good, key: "vpc",
			setup:   func(_ *fakecloud.Cloud, tr *fakecloud.Tracker) { tr.PatchErr = errors.New("api server down") },
			wantErr: isRetried, wantCalls: []string{"FindByTags", "Create"}, wantNets: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, tr := fakecloud.New(), fakecloud.NewTracker()
			if tt.setup != nil {
				tt.setup(c, tr)
			}
			res, err := ensure.Exists(ctx, tr, tt.key, c, ensure.Given(tt.spec))
			assert.Equal(t, tt.wantCalls, c.Calls)
			if !wantError(t, err, tt.wantErr) {
				assert.Equal(t, tt.wantNets, c.Count())
				return
			}
			assert.Equal(t, tt.wantAction, res.Action)
			assert.Equal(t, tt.wantID, res.ID)
			assert.Equal(t, tt.wantNets, c.Count())
			assert.Equal(t, tt.wantID, tr.Persisted[tt.key], "the ID is persisted before Ensure returns")
		})
	}
}

func TestEnsureCreateWithLostResponseMakesNoDuplicate(t *testing.T) {
	ctx := t.Context()
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	c.LoseResponse = true
	_, err := ensure.Exists(ctx, tr, "vpc", c, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.True(t, isRetried(err), "%v", err)
	require.Equal(t, 1, c.Count(), "the cloud created it although the response was lost")

	res, err := ensure.Exists(ctx, tr, "vpc", c, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, ensure.ActionAdopted, res.Action)
	assert.Equal(t, 1, c.Count(), "no second network")
}

func TestEnsureCrashBeforeRecordMakesNoDuplicate(t *testing.T) {
	rec := &fakecloud.Recorder{}
	ctx := step.ContextWithEnv(t.Context(), reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithEventRecorder(rec)))
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	tr.PatchErr = errors.New("api server down")
	_, err := ensure.Exists(ctx, tr, "vpc", c, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.True(t, isRetried(err), "%v", err)
	assert.ErrorContains(t, err, `cannot persist resource "vpc"`)

	// The process restarts: the in-memory ID is gone, the persisted map is empty.
	tr2 := fakecloud.NewTracker()
	res, err := ensure.Exists(ctx, tr2, "vpc", c, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, ensure.ActionAdopted, res.Action)
	assert.Equal(t, 1, c.Count())
	assert.Equal(t, []string{`Normal ResourceAdopted Reconcile adopted resource "vpc" (id "net-1") by its ownership tags`}, rec.All(),
		"the recovery is announced; the create before it was not")
}

func TestEnsureUsesTheSameTokenOnEveryAttempt(t *testing.T) {
	assert.Equal(t, ensure.IdempotencyToken("k", "vpc"), ensure.IdempotencyToken("k", "vpc"))
	assert.NotEqual(t, ensure.IdempotencyToken("k", "vpc"), ensure.IdempotencyToken("k", "subnet"))
	assert.NotEqual(t, ensure.IdempotencyToken("k1", "vpc"), ensure.IdempotencyToken("k2", "vpc"))
	assert.Len(t, ensure.IdempotencyToken("k", "vpc"), 32)

	// A cloud that honours tokens but cannot search tags still returns the same resource.
	ctx := t.Context()
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	c.LoseResponse = true
	_, err := ensure.Exists(ctx, tr, "vpc", noTags{c}, ensure.Given(fakecloud.Spec{CIDR: "x"}))
	require.Error(t, err)
	res, err := ensure.Exists(ctx, tr, "vpc", noTags{c}, ensure.Given(fakecloud.Spec{CIDR: "x"}))
	require.NoError(t, err)
	assert.Equal(t, ensure.ActionCreated, res.Action)
	assert.Equal(t, 1, c.Count())
}

func TestEnsureAddsTags(t *testing.T) {
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	res, err := ensure.Exists(t.Context(), tr, "vpc", c, ensure.Given(fakecloud.Spec{CIDR: "x"}),
		ensure.WithTags(map[string]string{"cluster": "c1", ensure.TagOwnershipKey: "spoofed"}))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cluster": "c1", ensure.TagOwnershipKey: "owner1", ensure.TagResourceKey: "vpc"}, c.Nets[res.ID].Tags)
}

// noTags is a cloud whose tag search finds nothing.
type noTags struct{ *fakecloud.Cloud }

func (noTags) FindByTags(context.Context, map[string]string) (*fakecloud.Net, bool, error) {
	return nil, false, nil
}

// Guarantees declares the tokens only: the search never lists what a create made.
func (noTags) Guarantees() ensure.Guarantees {
	return ensure.Guarantees{Idempotency: ensure.IdempotentByToken}
}

func TestEnsureDeleted(t *testing.T) {
	ctx := t.Context()
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	c.Put("net-1", ensure.OwnershipTags("owner1", "vpc"))
	c.Put("net-2", ensure.OwnershipTags("owner1", "vpc")) // an orphan whose ID was never recorded
	c.Put("net-3", ensure.OwnershipTags("owner2", "vpc"))
	tr.IDs["vpc"] = "net-1"
	for range 3 {
		res, err := ensure.Deleted(ctx, tr, "vpc", c)
		require.NoError(t, err)
		if res.Done {
			break
		}
	}
	assert.Equal(t, 1, c.Count(), "only the other owner's network is left")
	_, ok := tr.ResourceID("vpc")
	assert.False(t, ok)

	res, err := ensure.Deleted(ctx, tr, "vpc", c)
	require.NoError(t, err)
	assert.True(t, res.Done, "deleting again is done at once")

	c.FailNext["FindByTags"] = errThrottled
	_, err = ensure.Deleted(ctx, tr, "vpc", c)
	assert.True(t, isRetried(err))
	assert.ErrorIs(t, err, errThrottled)

	tr.KeyErr = scope.ErrOwnershipKeyNotPersisted
	res, err = ensure.Deleted(ctx, tr, "vpc", c)
	require.NoError(t, err)
	assert.True(t, res.Done, "nothing can carry a key that was never persisted")
}

var errThrottled = errors.New("throttled")

func TestEnsureObservesOnce(t *testing.T) {
	ctx := t.Context()
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	created, err := ensure.Exists(ctx, tr, "vpc", c, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.0/16", created.Observed.CIDR, "Create's answer is the observation")
	assert.True(t, created.Result.Done)

	c.Calls = nil
	found, err := ensure.Exists(ctx, tr, "vpc", c, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"Get"}, c.Calls, "a steady state costs one cloud read")
	assert.Equal(t, created.ID, found.Observed.ID)
	assert.Equal(t, step.Result{Done: true}, found.Result)
}

func TestEnsureLazySpec(t *testing.T) {
	ctx := t.Context()
	errNoData := errors.New("bootstrap data not ready")
	tests := []struct {
		name       string
		tracked    bool // a tracked network exists
		updater    bool
		spec       func(calls *int) ensure.Spec[fakecloud.Spec]
		wantCalls  int
		wantErr    func(error) bool
		wantCloud  []string
		wantAction ensure.Action
	}{
		{name: "not computed when found", tracked: true, wantCalls: 0, wantCloud: []string{"Get"}, wantAction: ensure.ActionFound},
		{name: "computed once to create", wantCalls: 1, wantCloud: []string{"FindByTags", "Create"}, wantAction: ensure.ActionCreated},
		{name: "computed once to compare with an Updater", tracked: true, updater: true, wantCalls: 1,
			wantCloud: []string{"Get"}, wantAction: ensure.ActionFound},
		{name: "invalid lazy spec is never sent", wantCalls: 1, wantCloud: []string{"FindByTags"}, wantErr: step.IsTerminal,
			spec: func(calls *int) ensure.Spec[fakecloud.Spec] {
				return ensure.Lazy(func(context.Context) (fakecloud.Spec, error) { *calls++; return fakecloud.Spec{}, nil })
			}},
		{name: "an error of the spec function is returned as it is", wantCalls: 1, wantCloud: []string{"FindByTags"},
			wantErr: func(err error) bool { return errors.Is(err, errNoData) && isRetried(err) },
			spec: func(calls *int) ensure.Spec[fakecloud.Spec] {
				return ensure.Lazy(func(context.Context) (fakecloud.Spec, error) { *calls++; return fakecloud.Spec{}, errNoData })
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, tr := fakecloud.New(), fakecloud.NewTracker()
			if tt.tracked {
				c.Put("net-1", ensure.OwnershipTags("owner1", "vpc"))
				tr.IDs["vpc"] = "net-1"
			}
			calls := 0
			spec := ensure.Lazy(func(context.Context) (fakecloud.Spec, error) {
				calls++
				return fakecloud.Spec{CIDR: "10.0.0.0/16"}, nil
			})
			if tt.spec != nil {
				spec = tt.spec(&calls)
			}
			var r ensure.Resource[fakecloud.Spec, *fakecloud.Net] = c
			if tt.updater {
				r = fakecloud.Updatable{Cloud: c}
			}
			res, err := ensure.Exists(ctx, tr, "vpc", r, spec)
			assert.Equal(t, tt.wantCalls, calls, "spec computations")
			assert.Equal(t, tt.wantCloud, c.Calls)
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
		wantAction ensure.Action
		wantResult step.Result
		wantDrift  []string
		wantErr    func(error) bool
		wantCIDR   string
	}{
		{name: "up to date: no update", cloudCIDR: "10.0.0.0/16", wantCalls: []string{"Get"},
			wantAction: ensure.ActionFound, wantResult: step.Result{Done: true}, wantCIDR: "10.0.0.0/16"},
		{name: "drifted: updated in place once", cloudCIDR: "10.1.0.0/16", wantCalls: []string{"Get", "Update"},
			wantAction: ensure.ActionUpdated, wantDrift: []string{"cidr"}, wantCIDR: "10.0.0.0/16",
			wantResult: step.Result{Reason: conditions.ReasonDriftCorrected, RequeueAfter: 3 * time.Second,
				Message: `resource "vpc" (id "net-1") differed from its spec in cidr; updated in place`}},
		{name: "update failure is retried", cloudCIDR: "10.1.0.0/16", failUpdate: errThrottled, wantCalls: []string{"Get", "Update"},
			wantErr: func(err error) bool { return isRetried(err) && errors.Is(err, errThrottled) }, wantCIDR: "10.1.0.0/16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, tr := fakecloud.New(), fakecloud.NewTracker()
			c.Put("net-1", ensure.OwnershipTags("owner1", "vpc")).CIDR = tt.cloudCIDR
			tr.IDs["vpc"] = "net-1"
			if tt.failUpdate != nil {
				c.FailNext["Update"] = tt.failUpdate
			}
			rec := &fakecloud.Recorder{}
			ctx := step.ContextWithEnv(ctx, reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithEventRecorder(rec)))
			res, err := ensure.Exists(ctx, tr, "vpc", fakecloud.Updatable{Cloud: c}, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}),
				ensure.WithPollInterval(3*time.Second))
			assert.Equal(t, tt.wantCalls, c.Calls)
			assert.Equal(t, tt.wantCIDR, c.Nets["net-1"].CIDR)
			assert.Equal(t, 1, c.Count(), "never re-created")
			if !wantError(t, err, tt.wantErr) {
				return
			}
			assert.Equal(t, tt.wantAction, res.Action)
			assert.Equal(t, tt.wantResult, res.Result)
			assert.Equal(t, tt.wantDrift, res.Drift)
			if tt.wantAction == ensure.ActionUpdated {
				assert.Equal(t, tt.wantCIDR, res.Observed.CIDR, "the observation is Update's answer")
				assert.Equal(t, []string{"Normal DriftCorrected"}, rec.Reasons())
			}
		})
	}
}

func TestEnsureReportsWhatCannotBeUpdatedInPlace(t *testing.T) {
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	c.Put("net-1", ensure.OwnershipTags("owner1", "vpc"))
	tr.IDs["vpc"] = "net-1"
	rec := &fakecloud.Recorder{}
	ctx := step.ContextWithEnv(t.Context(), reconcile.NewEnv(&testtypes.FooMachine{}, reconcile.WithEventRecorder(rec)))
	res, err := ensure.Exists(ctx, tr, "vpc", fakecloud.Updatable{Cloud: c}, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/8"}))
	require.NoError(t, err, "not terminal: the resource still serves, and the difference may go away")
	assert.Equal(t, []string{"Get"}, c.Calls, "nothing is changed, nothing deleted")
	assert.False(t, res.Result.Done)
	assert.Equal(t, conditions.ReasonNeedsReplacement, res.Result.Reason)
	assert.Equal(t, step.DefaultPollInterval, res.Result.RequeueAfter)
	assert.Contains(t, res.Result.Message, "cidr")
	assert.Equal(t, []string{"cidr"}, res.Drift)
	assert.Equal(t, []string{"Warning NeedsReplacement"}, rec.Reasons())
}

func TestEnsureWaitsForPendingResources(t *testing.T) {
	ctx := t.Context()
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	c.CreateState = "creating"
	res, err := ensure.Exists(ctx, tr, "vpc", fakecloud.WithStates{Cloud: c}, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}),
		ensure.WithPollInterval(2*time.Second))
	require.NoError(t, err)
	assert.Equal(t, ensure.ActionCreated, res.Action)
	assert.Equal(t, step.Result{Reason: conditions.ReasonResourcePending, RequeueAfter: 2 * time.Second,
		Message: `resource "vpc" (id "net-1"): network is creating`}, res.Result)
	assert.Equal(t, "net-1", tr.Persisted["vpc"], "the ID is persisted while the resource is pending")

	c.Calls = nil
	res, err = ensure.Exists(ctx, tr, "vpc", fakecloud.WithStates{Cloud: c}, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"Get"}, c.Calls, "waiting creates nothing")
	assert.False(t, res.Result.Done)
	assert.Equal(t, "creating", res.Observed.State, "the observation is there while pending")

	c.Nets["net-1"].State = ""
	res, err = ensure.Exists(ctx, tr, "vpc", fakecloud.WithStates{Cloud: c}, ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"}))
	require.NoError(t, err)
	assert.True(t, res.Result.Done)
}

func TestEnsureDeletedWaitsForSlowDeletes(t *testing.T) {
	ctx := t.Context()
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	c.Put("net-1", ensure.OwnershipTags("owner1", "vpc")).State = "deleting-slowly"
	tr.IDs["vpc"] = "net-1"
	res, err := ensure.Deleted(ctx, tr, "vpc", fakecloud.WithStates{Cloud: c}, ensure.WithPollInterval(time.Second))
	require.NoError(t, err)
	assert.Equal(t, step.Result{Reason: conditions.ReasonDeleting, RequeueAfter: time.Second,
		Message: `resource "vpc" (id "net-1"): network is deleting`}, res)
	_, tracked := tr.ResourceID("vpc")
	assert.True(t, tracked, "the ID is kept until the resource is gone")

	delete(c.Nets, "net-1") // the cloud finishes the delete
	res, err = ensure.Deleted(ctx, tr, "vpc", fakecloud.WithStates{Cloud: c})
	require.NoError(t, err)
	assert.True(t, res.Done)
	_, tracked = tr.ResourceID("vpc")
	assert.False(t, tracked)
}

func TestEnsureCreateOnce(t *testing.T) {
	ctx := t.Context()
	c, tr := fakecloud.New(), fakecloud.NewTracker()
	spec := ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"})
	created, err := ensure.Exists(ctx, tr, "server", c, spec, ensure.CreateOnce())
	require.NoError(t, err)
	require.Equal(t, ensure.ActionCreated, created.Action, "the first Ensure creates")

	found, err := ensure.Exists(ctx, tr, "server", c, spec, ensure.CreateOnce())
	require.NoError(t, err)
	assert.Equal(t, ensure.ActionFound, found.Action)

	delete(c.Nets, created.ID)                                   // deleted out of band
	c.Put("net-other", ensure.OwnershipTags("owner1", "server")) // would be adopted without CreateOnce
	c.Calls = nil
	_, err = ensure.Exists(ctx, tr, "server", c, spec, ensure.CreateOnce())
	require.Error(t, err)
	assert.Equal(t, conditions.ReasonResourceDeleted, step.TerminalReason(err), "%v", err)
	assert.Contains(t, err.Error(), created.ID, "the error names the resource that is gone")
	assert.Equal(t, []string{"Get"}, c.Calls, "neither adopted nor created again")
	id, _ := tr.ResourceID("server")
	assert.Equal(t, created.ID, id, "the gone ID stays recorded for the user to see")
}

// staleSearch is the fake cloud whose search still lists a deleted network once, as an eventually consistent
// list API does.
type staleSearch struct {
	*fakecloud.Cloud
	ghost *fakecloud.Net
}

func (s *staleSearch) Delete(ctx context.Context, id string) error {
	s.Mu.Lock()
	s.ghost = fakecloud.Clone(s.Nets[id])
	s.Mu.Unlock()
	return s.Cloud.Delete(ctx, id)
}

func (s *staleSearch) FindByTags(ctx context.Context, tags map[string]string) (*fakecloud.Net, bool, error) {
	if g := s.ghost; g != nil {
		s.ghost = nil
		return g, true, nil
	}
	return s.Cloud.FindByTags(ctx, tags)
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
		{name: "more than the bound", duplicates: ensure.MaxTaggedDeletes + 2, wantCalls: []bool{false, true}},
		{name: "a search that lags behind each delete", duplicates: 2, stale: true, wantCalls: []bool{false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			c, tr := fakecloud.New(), fakecloud.NewTracker()
			for i := range tt.duplicates {
				c.Put(fmt.Sprintf("net-%d", i), ensure.OwnershipTags("owner1", "vpc"))
			}
			c.Put("other", ensure.OwnershipTags("owner2", "vpc"))
			if tt.tracked {
				tr.IDs["vpc"] = "net-1"
			}
			var r ensure.Resource[fakecloud.Spec, *fakecloud.Net] = c
			if tt.stale {
				r = &staleSearch{Cloud: c}
			}
			for i, wantDone := range tt.wantCalls {
				res, err := ensure.Deleted(ctx, tr, "vpc", r, ensure.WithPollInterval(time.Second))
				require.NoError(t, err)
				require.Equal(t, wantDone, res.Done, "call %d: %+v", i, res)
				if !wantDone {
					assert.Equal(t, conditions.ReasonDeleting, res.Reason)
					assert.Equal(t, time.Second, res.RequeueAfter)
					if !tt.stale {
						assert.Positive(t, c.Count()-1, "call %d: not done while a tagged network exists", i)
					}
				}
				if tt.duplicates > ensure.MaxTaggedDeletes && i == 0 {
					assert.Equal(t, tt.duplicates-ensure.MaxTaggedDeletes, c.Count()-1, "at most MaxTaggedDeletes deletes per call")
				}
			}
			assert.Equal(t, 1, c.Count(), "only the other owner's network is left")
			_, ok := tr.ResourceID("vpc")
			assert.False(t, ok)
		})
	}
}
