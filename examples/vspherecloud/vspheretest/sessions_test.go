package vspheretest_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
)

// Sessions counts the sessions logged in, Client's included; AllowPassword lets a second password log in, and a
// logout ends its session.
func TestSessionsAndAllowPassword(t *testing.T) {
	ctx := t.Context()
	sim := vspheretest.New(t)
	assert.Equal(t, 1, sim.Sessions(t), "Client's")
	cfg := sim.Config
	cfg.Password = "rotated-pa55word"
	_, err := cloud.Connect(ctx, cfg)
	require.ErrorContains(t, err, "cannot log in")
	sim.AllowPassword(cfg.Password)
	c, err := cloud.Connect(ctx, cfg)
	require.NoError(t, err)
	assert.Equal(t, 2, sim.Sessions(t))
	require.NoError(t, c.Close(ctx))
	assert.Equal(t, 1, sim.Sessions(t))
}

// WaitVMTasks returns once the tasks a client started on a VM, without waiting for them, have ended; for a VM that
// does not exist at once.
func TestWaitVMTasks(t *testing.T) {
	ctx := t.Context()
	sim := vspheretest.New(t)
	ref, err := sim.Client.Clone(ctx, cloud.CloneSpec{Name: "vm-0", Inventory: sim.Inventory})
	require.NoError(t, err)
	require.NoError(t, sim.WaitTask(ref))
	task, err := sim.Client.Task(ctx, ref)
	require.NoError(t, err)
	vm, err := sim.Client.VM(ctx, task.Result)
	require.NoError(t, err)
	require.Equal(t, "poweredOn", string(vm.PowerState))

	_, err = sim.Client.PowerOff(ctx, vm.Ref)
	require.NoError(t, err)
	require.NoError(t, sim.WaitVMTasks(vm.UUID))
	off, err := sim.Inspect(vm.UUID)
	require.NoError(t, err)
	assert.Equal(t, "poweredOff", string(off.Runtime.PowerState))

	_, err = sim.Client.Destroy(ctx, vm.Ref)
	require.NoError(t, err)
	require.NoError(t, sim.WaitVMTasks(vm.UUID))
	assert.Zero(t, sim.VMs(t))
	require.NoError(t, sim.WaitVMTasks(vm.UUID), "no VM, no task")
}

// Close leaves nothing in the temporary folder, even with clones still running: the
// simulator's files outlived each test before (one folder per test, in every run).
func TestCloseLeavesNoFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	sim, err := vspheretest.Start()
	require.NoError(t, err)
	sp := cloud.CloneSpec{Name: "held", Inventory: sim.Inventory, CPUs: 2, MemoryMiB: 4096, DiskGiB: 20}
	sim.SetCloneTime(time.Hour) // a clone that ends with the simulator's clock
	_, err = sim.Client.Clone(t.Context(), sp)
	require.NoError(t, err)
	sim.SetCloneTime(0)
	for i := range 8 { // clones that write their VMs' files now (each of them alone leaves them about 1 time in 6)
		sp.Name = fmt.Sprintf("running-%d", i)
		_, err = sim.Client.Clone(t.Context(), sp)
		require.NoError(t, err)
	}
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.NotEmpty(t, entries, "the simulator keeps its files in TMPDIR")

	sim.Close()
	entries, err = os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
