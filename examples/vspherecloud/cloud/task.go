package cloud

import (
	"context"
	"fmt"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/task"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// Task is what the client reads of a vCenter task.
type Task struct {
	// Done is true once the task succeeded or failed.
	Done bool
	// Result is the MoRef value of the object a successful task returned: the VM of a clone.
	Result string
	// Err is the fault of a failed task (DuplicateName finds a clone's); nil while it runs and after a success.
	Err error
}

// Task reads the task ref; ErrNotFound when vCenter does not know it (any more: vCenter forgets finished tasks
// after a while). One call (RetrieveProperties).
func (c *Client) Task(ctx context.Context, ref string) (Task, error) {
	var t mo.Task
	obj := types.ManagedObjectReference{Type: "Task", Value: ref}
	if err := property.DefaultCollector(c.vim).RetrieveOne(ctx, obj, []string{"info"}, &t); err != nil {
		return Task{}, fmt.Errorf("cannot read task %s: %w", ref, notFound(err))
	}
	switch info := t.Info; info.State {
	case types.TaskInfoStateSuccess:
		out := Task{Done: true}
		if r, ok := info.Result.(types.ManagedObjectReference); ok {
			out.Result = r.Value
		}
		return out, nil
	case types.TaskInfoStateError:
		var err error = task.Error{LocalizedMethodFault: info.Error, Description: info.Description}
		if info.Error == nil {
			err = fmt.Errorf("task %s failed without a fault", ref)
		}
		if gone, ok := goneObject(err); ok { // an object of a clone's inventory, say: find it again next time
			c.inventory.forget(gone)
		}
		return Task{Done: true, Err: err}, nil
	}
	return Task{}, nil
}

// MaxClockSkew is how far FindTask lets vCenter's clock be behind the caller's: a task queued before since by more
// than that is not the one looked for.
const MaxClockSkew = 5 * time.Minute

// FindTask returns the MoRef value of the newest recent task of vCenter whose activation ID is id (the operation ID
// of the call that started it: CloneSpec.OperationID) and that was queued at or after since (within MaxClockSkew),
// and whether there is one. vCenter keeps a task in its recent tasks for a while after it ended, so a task that is
// not found may still have run. Two calls: the task manager's recent tasks, then their info.
func (c *Client) FindTask(ctx context.Context, id string, since time.Time) (string, bool, error) {
	pc := property.DefaultCollector(c.vim)
	var tm mo.TaskManager
	if err := pc.RetrieveOne(ctx, *c.vim.ServiceContent.TaskManager, []string{"recentTask"}, &tm); err != nil {
		return "", false, fmt.Errorf("cannot read the recent tasks: %w", err)
	}
	if len(tm.RecentTask) == 0 {
		return "", false, nil
	}
	var tasks []mo.Task
	if err := pc.Retrieve(ctx, tm.RecentTask, []string{"info"}, &tasks); err != nil {
		return "", false, fmt.Errorf("cannot read the recent tasks: %w", notFound(err))
	}
	var found *types.TaskInfo
	for i := range tasks {
		info := &tasks[i].Info
		if info.ActivationId != id || info.QueueTime.Before(since.Add(-MaxClockSkew)) {
			continue
		}
		if found == nil || info.QueueTime.After(found.QueueTime) {
			found = info
		}
	}
	if found == nil {
		return "", false, nil
	}
	return found.Task.Value, true, nil
}

// PowerOff starts powering off the VM ref and returns the task's MoRef value.
func (c *Client) PowerOff(ctx context.Context, ref string) (string, error) {
	return c.vmTask(ctx, ref, "power off", (*object.VirtualMachine).PowerOff)
}

// PowerOn starts powering on the VM ref and returns the task's MoRef value.
func (c *Client) PowerOn(ctx context.Context, ref string) (string, error) {
	return c.vmTask(ctx, ref, "power on", (*object.VirtualMachine).PowerOn)
}

// Destroy starts deleting the VM ref, which must be powered off, with its disks, and returns the task's MoRef value.
func (c *Client) Destroy(ctx context.Context, ref string) (string, error) {
	return c.vmTask(ctx, ref, "destroy", (*object.VirtualMachine).Destroy)
}

// vmTask starts the task of call on the VM ref; ErrNotFound when the VM does not exist.
func (c *Client) vmTask(ctx context.Context, ref, what string, call func(*object.VirtualMachine, context.Context) (*object.Task, error)) (string, error) {
	vm := object.NewVirtualMachine(c.vim, types.ManagedObjectReference{Type: "VirtualMachine", Value: ref})
	t, err := call(vm, ctx)
	if err != nil {
		return "", fmt.Errorf("cannot %s VM %s: %w", what, ref, notFound(err))
	}
	return t.Reference().Value, nil
}
