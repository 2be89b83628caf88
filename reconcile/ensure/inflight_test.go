package ensure_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// slowCloud is a cloud as they are: a create may run as an operation that ends after async, a new VM is listed by
// the tag search only lag after it exists, and tokens may be ignored. Its time moves only when the test says.
type slowCloud struct {
	now    time.Time
	async  time.Duration // 0: a create returns the VM
	lag    time.Duration // from a VM's existence to its listing
	tokens bool
	fail   int // the next fail operations end without a VM

	vms     map[string]*slowVM
	ops     map[string]*slowOp
	byToken map[string]string // token → operation or VM id
	n       int
}

type slowVM struct {
	id     string
	tags   map[string]string
	exists time.Time
}

type slowOp struct {
	vm     string
	ends   time.Time
	failed bool
}

func newSlowCloud(async, lag time.Duration, tokens bool) *slowCloud {
	return &slowCloud{now: time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC), async: async, lag: lag, tokens: tokens,
		vms: map[string]*slowVM{}, ops: map[string]*slowOp{}, byToken: map[string]string{}}
}

func (c *slowCloud) clock() time.Time { return c.now }

// live counts the VMs that exist or are being created.
func (c *slowCloud) live() int { return len(c.vms) }

func (c *slowCloud) get(_ context.Context, id string) (*slowVM, bool, error) {
	vm, ok := c.vms[id]
	if !ok || vm.exists.After(c.now) {
		return nil, false, nil
	}
	return vm, true, nil
}

func (c *slowCloud) find(_ context.Context, tags map[string]string) (*slowVM, bool, error) {
	var oldest *slowVM
	for _, vm := range c.vms {
		listed := !vm.exists.Add(c.lag).After(c.now)
		matches := true
		for k, v := range tags {
			matches = matches && vm.tags[k] == v
		}
		if listed && matches && (oldest == nil || vm.exists.Before(oldest.exists)) {
			oldest = vm
		}
	}
	return oldest, oldest != nil, nil
}

func (c *slowCloud) create(_ context.Context, _ string, token string, tags map[string]string) (*slowVM, error) {
	if seen, ok := c.byToken[token]; ok && c.tokens {
		if _, isOp := c.ops[seen]; isOp {
			return nil, ensure.Accepted(seen) // the operation of the first create, running or ended
		}
		return c.vms[seen], nil
	}
	c.n++
	vm := &slowVM{id: fmt.Sprintf("vm-%d", c.n), tags: maps.Clone(tags), exists: c.now.Add(c.async)}
	if c.async == 0 {
		c.vms[vm.id] = vm
		c.byToken[token] = vm.id
		return vm, nil
	}
	op := fmt.Sprintf("op-%d", c.n)
	c.ops[op] = &slowOp{vm: vm.id, ends: vm.exists, failed: c.fail > 0}
	if c.fail > 0 {
		c.fail--
	} else {
		c.vms[vm.id] = vm
	}
	c.byToken[token] = op
	return nil, ensure.Accepted(op)
}

func (c *slowCloud) poll(_ context.Context, id string) (*slowVM, bool, error) {
	op, ok := c.ops[id]
	switch {
	case !ok:
		return nil, false, fmt.Errorf("operation %q: %w", id, ensure.ErrOperationFailed)
	case op.ends.After(c.now):
		return nil, false, nil
	case op.failed:
		return nil, false, fmt.Errorf("operation %q ended without a VM: %w", id, ensure.ErrOperationFailed)
	}
	vm, ok := c.vms[op.vm]
	if !ok { // deleted since
		return nil, false, fmt.Errorf("operation %q: its VM is gone: %w", id, ensure.ErrOperationFailed)
	}
	return vm, true, nil
}

func (c *slowCloud) delete(_ context.Context, id string) error {
	delete(c.vms, id)
	return nil
}

// resource is the cloud's ensure.Resource declaring g; crash, when set, runs right after each create call.
func (c *slowCloud) resource(g ensure.Guarantees, crash func()) ensure.Resource[string, *slowVM] {
	return ensure.NewResource(ensure.ResourceFuncs[string, *slowVM]{
		GetFunc: c.get, FindByTagsFunc: c.find, DeleteFunc: c.delete, PollOperationFunc: c.poll,
		IDFunc: func(vm *slowVM) string { return vm.id },
		CreateFunc: func(ctx context.Context, spec, token string, tags map[string]string) (*slowVM, error) {
			vm, err := c.create(ctx, spec, token, tags)
			if crash != nil {
				crash()
			}
			return vm, err
		},
		Guarantees: g,
	})
}

var errCrash = errors.New("the manager stopped")

// untilDone runs step until its result is Done, moving the cloud's time by each requeue, for at most rounds
// rounds; it returns the rounds it took.
func untilDone(t *testing.T, c *slowCloud, rounds int, step func() (bool, time.Duration, error)) int {
	t.Helper()
	for i := 1; i <= rounds; i++ {
		done, after, err := step()
		require.NoError(t, err, "round %d", i)
		if done {
			return i
		}
		require.Positive(t, after, "round %d: a step that is not done must requeue", i)
		c.now = c.now.Add(after)
	}
	t.Fatalf("not done after %d rounds", rounds)
	return 0
}

// TestCrashAndDeleteDuringCreateOnSlowClouds is the "done when" at the level of Ensure: on a cloud that is
// asynchronous or not, lags by 1 s, with tokens, unique names or neither, a crash right after the create call
// leaves exactly one VM once Exists is done again, and a delete right after the create call (the manager down
// before it recorded anything) leaves none once Deleted is done. A resource that falsely declares an immediate
// search (the rule turned off) duplicates on a tokenless cloud and leaks.
func TestCrashAndDeleteDuringCreateOnSlowClouds(t *testing.T) {
	const lag = time.Second
	tests := []struct {
		name        string
		async       time.Duration
		tokens      bool
		declared    ensure.Guarantees
		wantVMs     int // after crash and Exists until done
		wantLeaked  int // after crash and Deleted until done
		wantAdopted bool
	}{
		{name: "sync, no tokens", declared: ensure.Guarantees{Idempotency: ensure.NotIdempotent, SearchLag: lag}, wantVMs: 1},
		{name: "async, no tokens", async: 500 * time.Millisecond,
			declared: ensure.Guarantees{Idempotency: ensure.NotIdempotent, SearchLag: 1500 * time.Millisecond}, wantVMs: 1},
		{name: "sync, tokens", tokens: true, declared: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, SearchLag: lag},
			wantVMs: 1, wantAdopted: true},
		{name: "async, tokens", async: 500 * time.Millisecond, tokens: true,
			declared: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, SearchLag: 1500 * time.Millisecond}, wantVMs: 1},
		{name: "async, unique names", async: 500 * time.Millisecond, tokens: true, // the token stands for the name
			declared: ensure.Guarantees{Idempotency: ensure.IdempotentByName, SearchLag: 1500 * time.Millisecond}, wantVMs: 1},
		{name: "undeclared, no tokens: the careful default", async: 500 * time.Millisecond, wantVMs: 1},
		{name: "rule off: an immediate search falsely declared, no tokens", declared: ensure.Guarantees{ImmediateSearch: true},
			wantVMs: 2, wantLeaked: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, then := range []string{"exists", "deleted"} {
				t.Run(then, func(t *testing.T) {
					c := newSlowCloud(tt.async, lag, tt.tokens)
					tr := scopetest.NewTracker("owner-1")
					crashed := false
					r := c.resource(tt.declared, func() {
						if !crashed {
							crashed = true
							tr.FailNextPatch(errCrash)
						}
					})
					opts := []ensure.Option{ensure.WithClock(c.clock), ensure.WithPollInterval(200 * time.Millisecond)}
					_, err := ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"), opts...)
					require.ErrorIs(t, err, errCrash, "the crash is the failed checkpoint after the create call")
					tr = tr.Restart()

					if then == "deleted" {
						untilDone(t, c, 1000, func() (bool, time.Duration, error) {
							res, err := ensure.Deleted(t.Context(), tr, "vm", r, opts...)
							return res.Done, res.RequeueAfter, err
						})
						c.now = c.now.Add(time.Hour) // every operation has ended, every VM is listed
						assert.Equal(t, tt.wantLeaked, c.live(), "VMs left after the delete")
						return
					}
					var last ensure.Result[*slowVM]
					untilDone(t, c, 1000, func() (bool, time.Duration, error) {
						out, err := ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"), opts...)
						last = out
						return out.Result.Done, out.Result.RequeueAfter, err
					})
					c.now = c.now.Add(time.Hour)
					assert.Equal(t, tt.wantVMs, c.live(), "VMs after the crash and the restart")
					if tt.wantAdopted {
						assert.Equal(t, ensure.ActionAdopted, last.Action, "a create answered for an earlier attempt is an adoption")
					}
					assert.Empty(t, tr.PersistedNotes(), "the note is cleared once the ID is recorded")
				})
			}
		})
	}
}

// TestAsyncCreateHoldsNoWorker: a create the cloud accepts as an operation returns at once, not done, with the
// operation checkpointed; later calls poll it and record the VM when it ends.
func TestAsyncCreateHoldsNoWorker(t *testing.T) {
	c := newSlowCloud(time.Minute, 0, true)
	tr := scopetest.NewTracker("owner-1")
	r := c.resource(ensure.Guarantees{Idempotency: ensure.IdempotentByToken, SearchLag: 2 * time.Minute}, nil)
	opts := []ensure.Option{ensure.WithClock(c.clock), ensure.WithPollInterval(10 * time.Second)}

	out, err := ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"), opts...)
	require.NoError(t, err)
	assert.False(t, out.Result.Done)
	assert.Equal(t, conditions.ReasonResourcePending, out.Result.Reason)
	assert.Contains(t, out.Result.Message, `operation "op-1"`)
	assert.Equal(t, time.Second, out.Result.RequeueAfter, "an operation that ends at once is seen a second later")
	assert.Empty(t, out.ID)
	assert.Regexp(t, `^operation \S+ op-1$`, tr.PersistedNotes()["vm"], "the operation is checkpointed before Exists returns")

	// The waits double with the operation's age, up to the poll interval.
	for _, step := range []struct{ advance, want time.Duration }{{time.Second, time.Second}, {time.Second, 2 * time.Second},
		{2 * time.Second, 4 * time.Second}, {4 * time.Second, 8 * time.Second}, {8 * time.Second, 10 * time.Second}, {14 * time.Second, 10 * time.Second}} {
		c.now = c.now.Add(step.advance)
		out, err = ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"), opts...)
		require.NoError(t, err)
		assert.False(t, out.Result.Done, "the operation still runs")
		assert.Equal(t, step.want, out.Result.RequeueAfter, "after %s more", step.advance)
	}

	c.now = c.now.Add(31 * time.Second)
	out, err = ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"), opts...)
	require.NoError(t, err)
	assert.True(t, out.Result.Done)
	assert.Equal(t, ensure.ActionCreated, out.Action)
	assert.Equal(t, "vm-1", out.ID)
	assert.Equal(t, map[string]string{"vm": "vm-1"}, tr.Persisted())
	assert.Empty(t, tr.PersistedNotes())
	assert.Equal(t, 1, c.n, "one create call")
}

// TestFailedOperationIsCreatedAgain: an operation that ends without a VM is forgotten and the VM created again.
func TestFailedOperationIsCreatedAgain(t *testing.T) {
	c := newSlowCloud(time.Second, 0, false)
	c.fail = 1
	tr := scopetest.NewTracker("owner-1")
	r := c.resource(ensure.Guarantees{Idempotency: ensure.NotIdempotent, SearchLag: 2 * time.Second}, nil)
	opts := []ensure.Option{ensure.WithClock(c.clock), ensure.WithPollInterval(time.Second)}
	var last ensure.Result[*slowVM]
	untilDone(t, c, 20, func() (bool, time.Duration, error) {
		out, err := ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"), opts...)
		last = out
		return out.Result.Done, out.Result.RequeueAfter, err
	})
	assert.Equal(t, "vm-2", last.ID)
	assert.Equal(t, 2, c.n, "the failed operation and the second create")
	assert.Equal(t, 1, c.live())
}

// TestOperationHandleIsBounded: a handle that cannot be checkpointed safely is an error, not a note.
func TestOperationHandleIsBounded(t *testing.T) {
	for name, op := range map[string]string{"empty": "", "long": string(make([]byte, ensure.MaxOperationHandle+1)), "space": "op 1", "newline": "op\n1"} {
		t.Run(name, func(t *testing.T) {
			tr := scopetest.NewTracker("owner-1")
			r := ensure.NewResource(ensure.ResourceFuncs[string, *slowVM]{
				GetFunc:        func(context.Context, string) (*slowVM, bool, error) { return nil, false, nil },
				FindByTagsFunc: func(context.Context, map[string]string) (*slowVM, bool, error) { return nil, false, nil },
				CreateFunc: func(context.Context, string, string, map[string]string) (*slowVM, error) {
					return nil, ensure.Accepted(op)
				},
				DeleteFunc: func(context.Context, string) error { return nil },
				IDFunc:     func(vm *slowVM) string { return vm.id },
				Guarantees: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true},
			})
			_, err := ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), `cannot track the create of resource "vm"`)
			_, noted := tr.Pending("vm")
			assert.False(t, noted, "the note is cleared once the delete is done")
		})
	}
}

// TestRefusedCreateIsNotWaitedFor: a create the cloud refused (terminal or throttled) made nothing, so its note is
// cleared and the next attempt does not wait out the search lag; any other error may hide a create, so it is waited
// for on a cloud without idempotent creates.
func TestRefusedCreateIsNotWaitedFor(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantWait bool
	}{
		{name: "terminal", err: step.Terminal(conditions.ReasonInvalidParameters, errors.New("quota exceeded"))},
		{name: "throttled", err: step.Throttled(errors.New("429"), 5*time.Second)},
		{name: "timeout: maybe created", err: errors.New("i/o timeout"), wantWait: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newSlowCloud(0, time.Second, false)
			tr := scopetest.NewTracker("owner-1")
			fail := true
			r := ensure.NewResource(ensure.ResourceFuncs[string, *slowVM]{
				GetFunc: c.get, FindByTagsFunc: c.find, DeleteFunc: c.delete,
				IDFunc: func(vm *slowVM) string { return vm.id },
				CreateFunc: func(ctx context.Context, spec, token string, tags map[string]string) (*slowVM, error) {
					if fail {
						fail = false
						return nil, tt.err
					}
					return c.create(ctx, spec, token, tags)
				},
				Guarantees: ensure.Guarantees{Idempotency: ensure.NotIdempotent, SearchLag: time.Minute},
			})
			opts := []ensure.Option{ensure.WithClock(c.clock), ensure.WithPollInterval(10 * time.Second)}
			_, err := ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"), opts...)
			require.ErrorIs(t, err, tt.err)
			require.NoError(t, tr.PatchNow(t.Context())) // the reconciler's Close
			out, err := ensure.Exists(t.Context(), tr, "vm", r, ensure.Given("small"), opts...)
			require.NoError(t, err)
			if tt.wantWait {
				assert.False(t, out.Result.Done)
				assert.Equal(t, conditions.ReasonResourcePending, out.Result.Reason)
				assert.Contains(t, out.Result.Message, "may not be listed")
				assert.Equal(t, 0, c.n, "no second create while the first may exist")
				return
			}
			assert.True(t, out.Result.Done)
			assert.Equal(t, ensure.ActionCreated, out.Action)
			assert.Empty(t, tr.PersistedNotes())
		})
	}
}

// TestThrottledCreateIsRetriedAfterItsHint: a Create the cloud throttled made nothing (ensure retries such a call in
// place), so on a cloud that declares nothing the next Exists creates after the throttling hint, without waiting out
// the search lag as for a create whose outcome is unknown.
func TestThrottledCreateIsRetriedAfterItsHint(t *testing.T) {
	c, tr := fakecloud.New(), scopetest.NewTracker("owner1")
	c.Declared = ensure.Guarantees{}
	c.FailNext["Create"] = step.Throttled(errors.New("429"), 5*time.Second)
	spec := ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"})
	_, err := ensure.Exists(t.Context(), tr, "vpc", c, spec)
	require.True(t, step.IsThrottled(err), "%v", err)
	res, err := ensure.Exists(t.Context(), tr, "vpc", c, spec)
	require.NoError(t, err)
	assert.Equal(t, ensure.ActionCreated, res.Action, "%+v", res.Result)
}

// TestUnreadableNoteIsWaitedForOnce: a note Exists cannot read is waited for once, over the search lag, then
// replaced by the create it notes (inflight.go's parseNote); it does not keep Exists or Deleted waiting forever.
func TestUnreadableNoteIsWaitedForOnce(t *testing.T) {
	c, tr := fakecloud.New(), scopetest.NewTracker("owner1")
	c.Declared = ensure.Guarantees{}
	require.NoError(t, tr.SetPending("vpc", "garbage"))
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := ensure.WithClock(func() time.Time { return now })
	spec := ensure.Given(fakecloud.Spec{CIDR: "10.0.0.0/16"})
	res, err := ensure.Exists(t.Context(), tr, "vpc", c, spec, clock)
	require.NoError(t, err)
	require.False(t, res.Result.Done, "waited for once")
	now = now.Add(ensure.DefaultSearchLag + time.Second)
	res, err = ensure.Exists(t.Context(), tr, "vpc", c, spec, clock)
	require.NoError(t, err)
	assert.Equal(t, ensure.ActionCreated, res.Action, "created once the lag has passed: %+v", res.Result)

	require.NoError(t, tr.SetPending("vpc", "garbage"))
	del, err := ensure.Deleted(t.Context(), tr, "vpc", c, clock)
	require.NoError(t, err)
	require.False(t, del.Done)
	now = now.Add(ensure.DefaultSearchLag + time.Second)
	del, err = ensure.Deleted(t.Context(), tr, "vpc", c, clock)
	require.NoError(t, err)
	assert.True(t, del.Done, "deleted once the lag has passed: %+v", del)
}

// TestNoteOfAnOperationWithoutPollerIsWaitedFor: a note naming an operation, met by a Resource that cannot read
// operations (the note of another version of the provider, or an edited annotation), is waited for over the search
// lag like an unknown create; Deleted then ends instead of failing for ever and holding the finalizer. A note longer
// than scope.MaxPendingNote is not parsed: it is rewritten as read and waited for once.
func TestNoteOfAnOperationWithoutPollerIsWaitedFor(t *testing.T) {
	for name, note := range map[string]string{
		"operation, no poller": "operation 2026-11-29T07:59:00Z op-7",
		"oversized":            "create 2026-11-29T07:59:00Z " + strings.Repeat("x", 300),
	} {
		t.Run(name, func(t *testing.T) {
			c := newSlowCloud(0, 0, true)
			tr := &scopetest.FakeMachineScope[*v1beta2.MemMachine]{FakeObject: scopetest.FakeObject[*v1beta2.MemMachine]{
				Object: &v1beta2.MemMachine{}, OwnershipKeyValue: "owner-1"}}
			tr.Object.SetAnnotations(map[string]string{scope.PendingAnnotationPrefix + "vm": note})
			r := ensure.NewResource(ensure.ResourceFuncs[string, *slowVM]{ // no PollOperationFunc
				GetFunc: c.get, FindByTagsFunc: c.find, DeleteFunc: c.delete, CreateFunc: c.create,
				IDFunc:     func(vm *slowVM) string { return vm.id },
				Guarantees: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, SearchLag: time.Minute},
			})
			opts := []ensure.Option{ensure.WithClock(c.clock), ensure.WithPollInterval(30 * time.Second)}
			rounds := untilDone(t, c, 10, func() (bool, time.Duration, error) {
				res, err := ensure.Deleted(t.Context(), tr, "vm", r, opts...)
				return res.Done, res.RequeueAfter, err
			})
			assert.LessOrEqual(t, rounds, 4, "waited for at most the search lag")
			_, noted := tr.Pending("vm")
			assert.False(t, noted, "the note is cleared once the delete is done")
		})
	}
}
