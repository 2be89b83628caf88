package vspheretest

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// template is the simulator's template VM, cloning as vCenter does. vcsim v0.52.0 drops what a clone's
// CloneSpec.Config asks besides devices (it copies extraConfig, uuid, CPUs and memory into a copy of the new VM's
// config: simulator/virtual_machine.go, CloneVMTask) and ignores CloneSpec.PowerOn; template's clone applies them
// to the new VM within the clone task, as vCenter does. It also runs each clone when the simulator's clock says
// (clones), in a task of its own that locks nothing while it waits: vcsim's own clone task holds the template's lock
// while it runs, which would make a second clone, and every read of the template, wait for the first.
type template struct {
	*simulator.VirtualMachine
	clones *clones
}

// CloneVMTask starts a clone that runs when its time has come.
func (t *template) CloneVMTask(ctx *simulator.Context, req *types.CloneVM_Task) soap.HasFault {
	c, hook := t.clones.add(req.Name)
	if hook != nil {
		hook(req.Name)
	}
	entity := types.ManagedObjectReference{Type: "VirtualMachine", Value: fmt.Sprintf("clone-%d", c.n)}
	task := simulator.CreateTask(entity, "cloneVm", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		<-c.release
		if c.fail {
			return nil, &types.SystemError{Reason: "the clone failed (vspheretest.Simulator.FailNextClone)"}
		}
		return t.clone(ctx, req)
	})
	// vCenter records the operation ID of the call as the task's activation ID (cloud.FindTask); vcsim does not.
	// The task is queued on the simulator's clock, which ensure reads in the tests (ensure.WithClock).
	task.Info.ActivationId = ctx.Header.ID
	task.Info.QueueTime = t.clones.clock()
	t.clones.started(c, task)
	return &methods.CloneVM_TaskBody{Res: &types.CloneVM_TaskResponse{Returnval: task.Run(ctx)}}
}

// clone runs vcsim's clone of req, then applies what it leaves out.
func (t *template) clone(ctx *simulator.Context, req *types.CloneVM_Task) (types.AnyType, types.BaseMethodFault) {
	inner := *req
	inner.Spec.PowerOn = false
	var res soap.HasFault
	ctx.WithLock(t.VirtualMachine, func() { res = t.VirtualMachine.CloneVMTask(ctx, &inner) })
	result, fault := wait(ctx, res.(*methods.CloneVM_TaskBody).Res.Returnval)
	if fault != nil {
		return nil, fault
	}
	ref := result.(types.ManagedObjectReference)
	vm := ctx.Map.Get(ref).(*simulator.VirtualMachine)
	if cfg := req.Spec.Config; cfg != nil {
		spec := *cfg
		spec.DeviceChange = nil // vcsim applied them
		ctx.WithLock(vm, func() { res = vm.ReconfigVMTask(ctx, &types.ReconfigVM_Task{This: ref, Spec: spec}) })
		if _, fault := wait(ctx, res.(*methods.ReconfigVM_TaskBody).Res.Returnval); fault != nil {
			return nil, fault
		}
	}
	if req.Spec.PowerOn {
		ctx.WithLock(vm, func() { res = vm.PowerOnVMTask(ctx, &types.PowerOnVM_Task{This: ref}) })
		if _, fault := wait(ctx, res.(*methods.PowerOnVM_TaskBody).Res.Returnval); fault != nil {
			return nil, fault
		}
	}
	return ref, nil
}

// wait waits for the simulator's task ref and returns its result or fault.
func wait(ctx *simulator.Context, ref types.ManagedObjectReference) (types.AnyType, types.BaseMethodFault) {
	task := ctx.Map.Get(ref).(*simulator.Task)
	task.Wait()
	var result types.AnyType
	var fault types.BaseMethodFault
	ctx.WithLock(task, func() {
		result = task.Info.Result
		if task.Info.Error != nil {
			fault = task.Info.Error.Fault
		}
	})
	return result, fault
}

// clones are the clones of the simulator's template, and the simulator's clock that runs them.
type clones struct {
	mu        sync.Mutex
	now       time.Time
	cloneTime time.Duration
	fail      bool
	all       []*clone
	onClone   func(name string)
}

// clone is one clone: it runs once release is closed, at due.
type clone struct {
	n       int
	name    string
	due     time.Time
	fail    bool
	release chan struct{}
	task    *simulator.Task
}

// add records a clone of name that starts now, and returns it with the hook to call.
func (c *clones) add(name string) (*clone, func(string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl := &clone{n: len(c.all), name: name, due: c.now.Add(c.cloneTime), fail: c.fail, release: make(chan struct{})}
	c.fail = false
	if c.cloneTime == 0 {
		close(cl.release)
	}
	c.all = append(c.all, cl)
	return cl, c.onClone
}

// advance moves the clock by d and runs the clones due, one after the other in the order they started, each to its
// end; then it waits for every other clone it released before.
func (c *clones) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	all, now := slices.Clone(c.all), c.now
	c.mu.Unlock()
	for _, cl := range all {
		c.mu.Lock()
		due := !cl.due.After(now) && !closed(cl.release)
		if due {
			close(cl.release)
		}
		released, task := closed(cl.release), cl.task
		c.mu.Unlock()
		if released {
			task.Wait()
		}
	}
}

func (c *clones) failNext() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail = true
}

// started records the task of cl before it runs.
func (c *clones) started(cl *clone, task *simulator.Task) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl.task = task
}

func (c *clones) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.all)
}

// held returns the names of the clones not released yet that will create a VM.
func (c *clones) held() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, cl := range c.all {
		if !closed(cl.release) && !cl.fail && !slices.Contains(names, cl.name) {
			names = append(names, cl.name)
		}
	}
	return names
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (c *clones) clock() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// releaseAll fails every clone still held, so that no task waits for a clock that no longer moves.
func (c *clones) releaseAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range c.all {
		if !closed(cl.release) {
			cl.fail = true
			close(cl.release)
		}
	}
}
