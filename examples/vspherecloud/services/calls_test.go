package services_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vmCalls are the vCenter API (SOAP) calls of one VM's life.
type vmCalls struct {
	// start is the reconcile that starts the clone, create the reconciles until the VM is ready (start included),
	// steady a reconcile of the ready VM, del the reconciles of its delete until done.
	start, create, steady, del int
}

// lifeCalls counts the calls of m's VM's life at the simulator: its create until it is ready (a clone of cloneTime,
// polled every poll), a reconcile of the ready VM, and its delete until done.
func lifeCalls(t *testing.T, m *machine) vmCalls {
	t.Helper()
	sim, ctx := m.sim, t.Context()
	var got vmCalls
	sim.Calls.Reset()
	out, err := m.exists(ctx)
	require.NoError(t, err)
	require.Empty(t, out.ID, "the clone runs")
	got.start = sim.Calls.Total()
	t.Logf("%s: the reconcile that starts the clone: %d calls %v", m.spec.Name, got.start, sim.Calls.ByMethod())
	sim.Advance(out.Result.RequeueAfter)
	m.untilReady(ctx)
	got.create = sim.Calls.Total()
	t.Logf("%s: create until ready: %d calls %v", m.spec.Name, got.create, sim.Calls.ByMethod())

	sim.Calls.Reset()
	out, err = m.exists(ctx)
	require.NoError(t, err)
	require.True(t, out.Result.Done)
	got.steady = sim.Calls.Total()
	t.Logf("%s: a reconcile of the ready VM: %d calls %v", m.spec.Name, got.steady, sim.Calls.ByMethod())

	sim.Calls.Reset()
	m.untilDeleted(ctx)
	got.del = sim.Calls.Total()
	t.Logf("%s: delete until done: %d calls %v", m.spec.Name, got.del, sim.Calls.ByMethod())
	assert.Zero(t, sim.VMs(t))
	return got
}

// TestAPICallsPerVM counts the vCenter API (SOAP) calls of one VM's life at the simulator, for the first VM of a
// vCenter session, which finds the inventory, and for a later VM of the same inventory, which the client's
// inventory cache serves.
func TestAPICallsPerVM(t *testing.T) {
	first := newMachine(t)
	firstCalls := lifeCalls(t, first)
	laterCalls := lifeCalls(t, first.another("m-1", "owner-2"))

	// The figures of the package's doc (doc.go): a change in them is a change in what the provider costs.
	// ensure reads an operation after waits that double with its age, from 1 s up to the poll interval.
	polls := 0
	for age := time.Duration(0); age < cloneTime; polls++ {
		age += min(poll, max(time.Second, age))
	}
	for _, tt := range []struct {
		name  string
		got   vmCalls
		start int
		why   string
	}{
		{name: "first VM", got: firstCalls, start: 23, why: "search by tags (3), the inventory, the template's devices and the port group (19 reads), the clone (1)"},
		{name: "later VM", got: laterCalls, start: 4, why: "search by tags (3), the clone (1): the inventory is cached"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.start, tt.got.start, tt.why)
			assert.Equal(t, tt.got.start+polls+1+2, tt.got.create, "+ a task read per poll, the read of the clone's VM, and the reconcile that finds it with an address (2)")
			assert.Equal(t, 2, tt.got.steady, "FindByUuid and one read")
			// The read that follows the destroy call races vcsim's destroy task, as it would a vCenter's: 19 calls when
			// the task has ended (FindByUuid finds nothing), 20 when it still finds the VM and reads it.
			assert.Contains(t, []int{19, 20}, tt.got.del, "two reconciles: power off, then destroy, each read, searched by tags and read again")
		})
	}
}
