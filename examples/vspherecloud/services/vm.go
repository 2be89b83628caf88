package services

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
)

// KeyVM is the resource key of a machine's VM.
const KeyVM = "vm"

// TagToken is the tag that carries the create's idempotency token (ensure.IdempotencyToken) besides the ownership
// tags: a clone that finds its name taken checks it to tell the VM an earlier create of the same machine made from a
// VM of someone else that has the same name.
const TagToken = "capkit.io/idempotency-token"

// Reasons of the VM's step conditions, besides those of package conditions.
const (
	// ReasonWaitingForIPAddress: the VM runs, and guest tools report no address yet.
	ReasonWaitingForIPAddress = "WaitingForIPAddress"
	// ReasonVMNameTaken: a VM this machine did not create has its name in its folder.
	ReasonVMNameTaken = "VMNameTaken"
	// ReasonInventoryNotFound: the spec names a datacenter, folder, resource pool, datastore, network or template
	// the vCenter does not have.
	ReasonInventoryNotFound = "InventoryNotFound"
)

// DefaultMaxCloneTime is the longest a clone takes, unless WithMaxCloneTime says otherwise.
const DefaultMaxCloneTime = 30 * time.Minute

// MaxVMNameLength is vSphere's limit on a VM's name.
const MaxVMNameLength = 80

// VMOption configures the VM resource.
type VMOption func(*vms)

// WithMaxCloneTime declares the longest a clone takes (DefaultMaxCloneTime): the VM of a clone does not exist, so
// no search lists it, until the clone ends; this is the search lag the resource declares to ensure.
func WithMaxCloneTime(d time.Duration) VMOption {
	return func(v *vms) {
		if d > 0 {
			v.maxCloneTime = d
		}
	}
}

// vms is the VM resource of one vCenter.
type vms struct {
	c            *cloud.Client
	maxCloneTime time.Duration
}

// NewVMs returns the VM resource of the vCenter of c (VMFuncs).
func NewVMs(c *cloud.Client, opts ...VMOption) ensure.Resource[cloud.CloneSpec, *cloud.VM] {
	return ensure.NewResource(VMFuncs(c, opts...))
}

// VMFuncs returns the functions of the VM resource of the vCenter of c. The spec is a cloud.CloneSpec whose UUID
// and Tags Create sets; the ID is the VM's BIOS UUID (ProviderID); the VM's name, unique in its folder, is its
// idempotency: a second clone of the name finds the VM of the first (ensure.IdempotentByName), and that VM is the
// create's if it carries the create's token (TagToken), else the create fails with ReasonVMNameTaken.
//
//   - Create clones the template, powered on, with the ownership tags as extraConfig, and returns
//     ensure.Accepted of the clone task (and the token); PollOperation reads the task, then the VM it made.
//   - Get finds the VM by its BIOS UUID, then reads it (two calls); FindByTags lists the VMs of the vCenter
//     carrying the tags (three calls) and returns the oldest.
//   - Delete powers the VM off, and on a later call, once it is off, destroys it; ensure.Deleted waits meanwhile.
//   - A powered-on VM without an IP address is pending (ReasonWaitingForIPAddress).
//
// The guarantees: idempotent by name, and a search that lists a VM once its clone has ended, at most the longest
// clone time after the create (WithMaxCloneTime).
func VMFuncs(c *cloud.Client, opts ...VMOption) ensure.ResourceFuncs[cloud.CloneSpec, *cloud.VM] {
	v := &vms{c: c, maxCloneTime: DefaultMaxCloneTime}
	for _, o := range opts {
		if o != nil {
			o(v)
		}
	}
	isNotFound := func(err error) bool { return errors.Is(err, cloud.ErrNotFound) }
	return ensure.ResourceFuncs[cloud.CloneSpec, *cloud.VM]{
		ResourceKind:      KeyVM,
		ValidateFunc:      validate,
		GetFunc:           ensure.GoneIfNotFound(v.get, isNotFound),
		FindByTagsFunc:    ensure.FindOldest(c.FindVMs, nil), // FindVMs lists the oldest first
		CreateFunc:        v.create,
		DeleteFunc:        ensure.IgnoreErrors(v.delete, isNotFound),
		IDFunc:            func(vm *cloud.VM) string { return vm.UUID },
		PendingFunc:       pending,
		PollOperationFunc: v.poll,
		FindOperationFunc: v.find,
		ClassifyFunc:      classify,
		Guarantees:        ensure.Guarantees{Idempotency: ensure.IdempotentByName, SearchLag: v.maxCloneTime},
	}
}

// get reads the VM with BIOS UUID id.
func (v *vms) get(ctx context.Context, id string) (*cloud.VM, error) {
	ref, err := v.c.FindByUUID(ctx, id)
	if err != nil {
		return nil, err
	}
	return v.read(ctx, ref)
}

// read reads the VM ref with its token, through ensure.Call: a second call of the function that makes it.
func (v *vms) read(ctx context.Context, ref string) (*cloud.VM, error) {
	var vm *cloud.VM
	err := ensure.Call(ctx, KeyVM, "get", func(ctx context.Context) (err error) {
		vm, err = v.c.VM(ctx, ref, TagToken)
		return classify(err)
	})
	return vm, err
}

// create starts the clone of spec with a fresh BIOS UUID (vCenter would choose one; vcsim derives it from the VM's
// files, so that a VM cloned again under a name would get the UUID of the one deleted before it).
func (v *vms) create(ctx context.Context, spec cloud.CloneSpec, token string, tags map[string]string) (*cloud.VM, error) {
	spec.UUID = uuid.NewString()
	spec.Tags = maps.Clone(tags)
	spec.Tags[TagToken] = token
	spec.OperationID = token // the clone's task carries it: find finds the task of a create whose handle was lost
	if len(spec.MetaData) == 0 {
		spec.MetaData = Metadata(spec.Name)
	}
	task, err := v.c.Clone(ctx, spec)
	if ref, taken := cloud.DuplicateName(err); taken {
		return v.duplicate(ctx, ref, token)
	}
	if err != nil {
		return nil, err
	}
	return nil, ensure.Accepted(task + "/" + token)
}

// duplicate returns the VM ref that holds the name a clone wanted when it carries the clone's token: the VM of an
// earlier create of the same machine.
func (v *vms) duplicate(ctx context.Context, ref, token string) (*cloud.VM, error) {
	vm, err := v.read(ctx, ref)
	if err != nil {
		return nil, err
	}
	if vm.Tags[TagToken] != token {
		return nil, step.Terminal(ReasonVMNameTaken, fmt.Errorf("VM %s holds the name %q in its folder, and this machine did not create it", ref, vm.Name))
	}
	return vm, nil
}

// find returns the clone op ("<task>/<token>") of the newest clone task started with token (its operation ID) at or
// after since, if vCenter still lists it among its recent tasks.
func (v *vms) find(ctx context.Context, token string, since time.Time) (string, bool, error) {
	task, found, err := v.c.FindTask(ctx, token, since)
	if err != nil || !found {
		return "", false, err
	}
	return task + "/" + token, true, nil
}

// poll reads the clone op ("<task>/<token>"): the VM once the task has made it, or the VM of an earlier create
// whose name the clone found taken.
func (v *vms) poll(ctx context.Context, op string) (*cloud.VM, bool, error) {
	ref, token, _ := strings.Cut(op, "/")
	task, err := v.c.Task(ctx, ref)
	switch {
	case errors.Is(err, cloud.ErrNotFound):
		// vCenter forgets finished tasks: the create is made again, and its name finds the VM if there is one.
		return nil, false, fmt.Errorf("%w: %w", ensure.ErrOperationFailed, err)
	case err != nil:
		return nil, false, err
	case !task.Done:
		return nil, false, nil
	case task.Err != nil:
		if dup, taken := cloud.DuplicateName(task.Err); taken {
			vm, err := v.duplicate(ctx, dup, token)
			return vm, err == nil, err
		}
		return nil, false, fmt.Errorf("%w: clone task %s: %w", ensure.ErrOperationFailed, ref, task.Err)
	}
	vm, err := v.read(ctx, task.Result)
	switch {
	case errors.Is(err, cloud.ErrNotFound):
		return nil, false, fmt.Errorf("%w: clone task %s made VM %s, which is gone: %w", ensure.ErrOperationFailed, ref, task.Result, err)
	case err == nil && vm.Tags[TagToken] != token:
		// Not this machine's clone: a task found by its activation ID (find), which any vCenter client can set,
		// never hands over a VM that lacks the create's token.
		return nil, false, fmt.Errorf("%w: clone task %s made VM %s, which does not carry this machine's token", ensure.ErrOperationFailed, ref, task.Result)
	}
	return vm, err == nil, err
}

// delete powers off the VM with BIOS UUID id, or destroys it once it is off; ensure.Deleted reads it again after
// the task has started, and waits while it is there.
func (v *vms) delete(ctx context.Context, id string) error {
	vm, err := v.get(ctx, id)
	if err != nil {
		return err
	}
	call := v.c.Destroy
	if vm.PowerState == "poweredOn" {
		call = v.c.PowerOff
	}
	var task string
	err = ensure.Call(ctx, KeyVM, "delete", func(ctx context.Context) (err error) {
		task, err = call(ctx, vm.Ref)
		return classify(err)
	})
	if err != nil {
		return err
	}
	return ensure.Accepted(task)
}

// pending reports a VM that runs and has no IP address yet.
func pending(vm *cloud.VM) (reason, message string, pending bool) {
	if vm.PowerState == "poweredOn" && len(vm.IPs) == 0 {
		return ReasonWaitingForIPAddress, fmt.Sprintf("VM %q runs; guest tools report no IP address yet", vm.Name), true
	}
	return "", "", false
}

// validate checks a spec before any call.
func validate(s cloud.CloneSpec) error {
	var errs []error
	if msgs := validation.IsDNS1123Subdomain(s.Name); len(msgs) > 0 || len(s.Name) > MaxVMNameLength {
		errs = append(errs, fmt.Errorf("name %q must be a DNS subdomain of at most %d characters", s.Name, MaxVMNameLength))
	}
	for field, value := range map[string]string{"datacenter": s.Datacenter, "folder": s.Folder, "resourcePool": s.ResourcePool,
		"datastore": s.Datastore, "network": s.Network, "template": s.Template} {
		if value == "" {
			errs = append(errs, fmt.Errorf("%s must not be empty", field))
		}
	}
	if s.CPUs < 0 || s.MemoryMiB < 0 || s.DiskGiB < 0 {
		errs = append(errs, errors.New("CPUs, memory and disk must not be negative"))
	}
	if len(s.UserData) == 0 {
		errs = append(errs, errors.New("the bootstrap data must not be empty"))
	}
	return errors.Join(errs...)
}

// classify gives a cloud error its class for capkit's reconcilers: terminal when retrying cannot help.
func classify(err error) error {
	switch {
	case errors.Is(err, cloud.ErrInventoryNotFound):
		return step.Terminal(ReasonInventoryNotFound, err)
	case errors.Is(err, cloud.ErrInvalidSpec):
		return step.Terminal(conditions.ReasonInvalidParameters, err)
	}
	return err
}

// Metadata is cloud-init's metadata of a VM named name: its instance ID and host name.
func Metadata(name string) []byte {
	return fmt.Appendf(nil, "instance-id: %s\nlocal-hostname: %s\n", name, name)
}

// ProviderIDPrefix starts the providerID of a vSphere machine, "vsphere://<BIOS UUID>", as CAPV writes it.
const ProviderIDPrefix = "vsphere://"

// ProviderID returns the providerID of the VM with BIOS UUID id.
func ProviderID(id string) string { return ProviderIDPrefix + id }

// IDFromProviderID returns the BIOS UUID of providerID.
func IDFromProviderID(providerID string) (string, error) {
	id, ok := strings.CutPrefix(providerID, ProviderIDPrefix)
	if !ok || uuid.Validate(id) != nil {
		return "", fmt.Errorf("cannot read providerID %q: want %s<BIOS UUID>", providerID, ProviderIDPrefix)
	}
	return id, nil
}
