package services_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPICallsPerVM counts the vCenter API (SOAP) calls of one VM's life at the simulator: its create until it is
// ready (a clone of cloneTime, polled every poll), a reconcile of the ready VM, and its delete until done.
func TestAPICallsPerVM(t *testing.T) {
	m := newMachine(t)
	sim := m.sim
	ctx := t.Context()
	sim.Calls.Reset()
	out, err := m.exists(ctx)
	require.NoError(t, err)
	require.Empty(t, out.ID, "the clone runs")
	start := sim.Calls.Total()
	t.Logf("the reconcile that starts the clone: %d calls %v", start, sim.Calls.ByMethod())
	sim.Advance(out.Result.RequeueAfter)
	m.untilReady(ctx)
	create := sim.Calls.Total()
	t.Logf("create until ready: %d calls %v", create, sim.Calls.ByMethod())

	sim.Calls.Reset()
	out, err = m.exists(ctx)
	require.NoError(t, err)
	require.True(t, out.Result.Done)
	steady := sim.Calls.Total()
	t.Logf("a reconcile of the ready VM: %d calls %v", steady, sim.Calls.ByMethod())

	sim.Calls.Reset()
	m.untilDeleted(ctx)
	del := sim.Calls.Total()
	t.Logf("delete until done: %d calls %v", del, sim.Calls.ByMethod())
	assert.Zero(t, sim.VMs(t))

	// The figures of the package's doc (doc.go): a change in them is a change in what the provider costs.
	// ensure reads an operation after waits that double with its age, from 1 s up to the poll interval.
	polls := 0
	for age := time.Duration(0); age < cloneTime; polls++ {
		age += min(poll, max(time.Second, age))
	}
	assert.Equal(t, 23, start, "search by tags (3), the inventory, the template's devices and the port group (19 reads), the clone (1)")
	assert.Equal(t, start+polls+1+2, create, "+ a task read per poll, the read of the clone's VM, and the reconcile that finds it with an address (2)")
	assert.Equal(t, 2, steady, "FindByUuid and one read")
	assert.Equal(t, 19, del, "two reconciles: power off, then destroy, each read, searched by tags and read again")
}
