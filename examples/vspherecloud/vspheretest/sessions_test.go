package vspheretest_test

import (
	"testing"

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
