package services_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope/scopetest"
)

var errCrash = errors.New("the manager stopped")

// stops are the moments the manager stops at during a clone, each a function that runs the reconcile that starts
// the clone on m and returns the tracker of the restarted manager.
var stops = []struct {
	name string
	// clones is how many clones the recovery makes in all, and recorded how it records the VM.
	clones   int
	recorded ensure.Action
	stop     func(t *testing.T, m *machine) *scopetest.Tracker
}{
	{
		name: "after the clone task was checkpointed", clones: 1, recorded: ensure.ActionCreated,
		stop: func(t *testing.T, m *machine) *scopetest.Tracker {
			out, err := m.exists(t.Context())
			require.NoError(t, err)
			require.Empty(t, out.ID, "the clone runs")
			require.Contains(t, m.tr.PersistedNotes()[services.KeyVM], "operation ")
			return m.tr.Restart()
		},
	},
	{
		// The restarted manager finds the clone's task by its operation ID (ensure.OperationFinder) and waits for it.
		name: "right after the clone call, before its task was checkpointed", clones: 1, recorded: ensure.ActionAdopted,
		stop: func(t *testing.T, m *machine) *scopetest.Tracker { return stopAfterCloneCall(t, m) },
	},
	{
		// vCenter no longer lists the task: the restarted manager clones again, and the name finds the first VM.
		name: "right after the clone call, the task forgotten by vCenter", clones: 2, recorded: ensure.ActionAdopted,
		stop: func(t *testing.T, m *machine) *scopetest.Tracker {
			tr := stopAfterCloneCall(t, m)
			funcs := services.VMFuncs(m.sim.Client, services.WithMaxCloneTime(maxCloneTime))
			funcs.FindOperationFunc = func(context.Context, string, time.Time) (string, bool, error) { return "", false, nil }
			m.res = ensure.NewResource(funcs)
			return tr
		},
	},
}

// stopAfterCloneCall runs the reconcile that starts the clone on m, and stops the manager right after the clone call,
// before the patch that persists its task: only the note of the create is persisted.
func stopAfterCloneCall(t *testing.T, m *machine) *scopetest.Tracker {
	funcs := services.VMFuncs(m.sim.Client, services.WithMaxCloneTime(maxCloneTime))
	create := funcs.CreateFunc
	funcs.CreateFunc = func(ctx context.Context, s cloud.CloneSpec, token string, tags map[string]string) (*cloud.VM, error) {
		vm, err := create(ctx, s, token, tags)
		m.tr.FailNextPatch(errCrash) // the patch that would persist the task
		return vm, err
	}
	crashing := *m
	crashing.res = ensure.NewResource(funcs)
	_, err := crashing.exists(t.Context())
	require.ErrorIs(t, err, errCrash)
	require.Contains(t, m.tr.PersistedNotes()[services.KeyVM], "create ", "only the note of the create call is persisted")
	return m.tr.Restart()
}

// TestALostCloneThatFailed: the manager stops right after the clone call, and the clone then fails. The restarted
// manager finds the task by its operation ID, so it knows at once: a delete is done without waiting out the longest
// clone (the search lag the resource declares; without the task it waits that long, as no search can tell a clone
// that failed from one that runs), and a reconcile clones again.
func TestALostCloneThatFailed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		check func(t *testing.T, m *machine, start time.Time)
	}{
		{name: "deleted", check: func(t *testing.T, m *machine, start time.Time) {
			m.untilDeleted(t.Context())
			assert.Less(t, m.sim.Now().Sub(start), maxCloneTime, "the delete did not wait out the longest clone")
			assert.Empty(t, m.tr.PersistedNotes())
		}},
		{name: "reconciled until ready", check: func(t *testing.T, m *machine, _ time.Time) {
			_, recorded := m.untilReady(t.Context())
			assert.Equal(t, ensure.ActionCreated, recorded)
			assert.Equal(t, 2, m.sim.Clones(), "the failed clone, and a second one")
			assert.Equal(t, 1, m.sim.VMs(t))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			m.sim.FailNextClone()
			start := m.sim.Now()
			m.tr = stopAfterCloneCall(t, m)
			m.sim.Advance(cloneTime) // the clone ends, and fails
			tt.check(t, m, start)
		})
	}
}

// TestStoppedDuringTheClone stops the manager while a clone runs. The restarted manager reconciles until the VM is
// ready: exactly one VM, the one recorded. Or the machine was deleted meanwhile: the restarted manager deletes until
// done, and no VM is left, also once every clone has ended.
func TestStoppedDuringTheClone(t *testing.T) {
	then := []struct {
		name  string
		check func(t *testing.T, m *machine, clones int, action ensure.Action)
	}{
		{name: "reconciled until ready", check: func(t *testing.T, m *machine, clones int, action ensure.Action) {
			out, recorded := m.untilReady(t.Context())
			assert.Equal(t, 1, m.sim.VMs(t), "exactly one VM")
			assert.Equal(t, clones, m.sim.Clones())
			assert.Equal(t, out.ID, m.tr.Persisted()[services.KeyVM])
			assert.Equal(t, "m-0", out.Observed.Name)
			assert.Equal(t, []string{"10.0.0.7"}, out.Observed.IPs)
			assert.Equal(t, action, recorded, "the VM of an attempt whose outcome was not recorded is adopted")
		}},
		{name: "deleted meanwhile", check: func(t *testing.T, m *machine, _ int, _ ensure.Action) {
			m.untilDeleted(t.Context())
			assert.Zero(t, m.sim.VMs(t), "leaked")
			m.sim.Advance(maxCloneTime)
			assert.Zero(t, m.sim.VMs(t), "leaked once every clone ended")
			assert.Empty(t, m.tr.Persisted())
			assert.Empty(t, m.tr.PersistedNotes())
		}},
	}
	for _, st := range stops {
		for _, th := range then {
			t.Run(st.name+"/"+th.name, func(t *testing.T) {
				m := newMachine(t)
				m.tr = st.stop(t, m)
				th.check(t, m, st.clones, st.recorded)
			})
		}
	}
}

// A task found by its activation ID that made a VM without this machine's token (another vCenter client gave the
// token as its operation ID) is not adopted: the step clones its own VM.
func TestAForeignTaskWithTheTokenIsNotAdopted(t *testing.T) {
	m := newMachine(t)
	ctx := t.Context()
	foreign := validSpec()
	foreign.Name, foreign.Tags = "intruder", map[string]string{services.TagToken: "not-this-machines"}
	task, err := m.sim.Client.Clone(ctx, foreign)
	require.NoError(t, err)
	m.sim.Advance(cloneTime)
	intruder := m.sim.UUIDs(t)["intruder"]
	require.NotEmpty(t, intruder)

	tr := stopAfterCloneCall(t, m)
	funcs := services.VMFuncs(m.sim.Client, services.WithMaxCloneTime(maxCloneTime))
	funcs.FindOperationFunc = func(_ context.Context, token string, _ time.Time) (string, bool, error) {
		return task + "/" + token, true, nil
	}
	m.res, m.tr = ensure.NewResource(funcs), tr
	out, _ := m.untilReady(ctx)
	assert.NotEqual(t, intruder, out.ID, "the intruder's VM is not adopted")
	assert.Equal(t, "m-0", out.Observed.Name)
}
