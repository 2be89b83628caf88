package services_test

import (
	"context"
	"errors"
	"testing"

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
	// clones is how many clones the recovery makes in all.
	clones int
	stop   func(t *testing.T, m *machine) *scopetest.Tracker
}{
	{
		name: "after the clone task was checkpointed", clones: 1,
		stop: func(t *testing.T, m *machine) *scopetest.Tracker {
			out, err := m.exists(t.Context())
			require.NoError(t, err)
			require.Empty(t, out.ID, "the clone runs")
			require.Contains(t, m.tr.PersistedNotes()[services.KeyVM], "operation ")
			return m.tr.Restart()
		},
	},
	{
		name: "right after the clone call, before its task was checkpointed", clones: 2,
		stop: func(t *testing.T, m *machine) *scopetest.Tracker {
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
		},
	},
}

// TestStoppedDuringTheClone stops the manager while a clone runs. The restarted manager reconciles until the VM is
// ready: exactly one VM, the one recorded. Or the machine was deleted meanwhile: the restarted manager deletes until
// done, and no VM is left, also once every clone has ended.
func TestStoppedDuringTheClone(t *testing.T) {
	then := []struct {
		name  string
		check func(t *testing.T, m *machine, clones int)
	}{
		{name: "reconciled until ready", check: func(t *testing.T, m *machine, clones int) {
			out, recorded := m.untilReady(t.Context())
			assert.Equal(t, 1, m.sim.VMs(t), "exactly one VM")
			assert.Equal(t, clones, m.sim.Clones())
			assert.Equal(t, out.ID, m.tr.Persisted()[services.KeyVM])
			assert.Equal(t, "m-0", out.Observed.Name)
			assert.Equal(t, []string{"10.0.0.7"}, out.Observed.IPs)
			if clones > 1 {
				assert.Equal(t, ensure.ActionAdopted, recorded, "the second clone found the first VM by its name")
			}
		}},
		{name: "deleted meanwhile", check: func(t *testing.T, m *machine, _ int) {
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
				th.check(t, m, st.clones)
			})
		}
	}
}
