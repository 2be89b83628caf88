package services

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// TagCluster is the tag every VM of a cluster carries, with value "<namespace>/<cluster name>", besides the ownership
// tags of ensure.Exists.
const TagCluster = "vspherecloud.capkit.io/cluster"

// ReasonVMPoweredOff is the reason of a VM that exists and is not powered on (someone powered it off); vspherecloud
// does not power it on again.
const ReasonVMPoweredOff = "VMPoweredOff"

// Machine is the step of a VSphereMachine: its VM, cloned through ensure.Exists with the Machine's bootstrap data
// (cloud-init) as guestinfo, recorded in spec.providerID ("vsphere://<BIOS UUID>") through
// scope.ProviderIDTracker, its addresses from guest info in status.addresses, and provisioned once it runs with an
// address. Delete destroys it through ensure.Deleted. The clone, the wait for guest tools and the delete are ensure's
// operations and pending states: the service keeps no bookkeeping of its own.
type Machine struct {
	clusters client.Reader
	sessions *Sessions
	vmOpts   []VMOption
}

// MachineOption configures the machine service.
type MachineOption func(*Machine)

// WithVMOptions configures the VM resource (WithMaxCloneTime).
func WithVMOptions(opts ...VMOption) MachineOption {
	return func(m *Machine) { m.vmOpts = append(m.vmOpts, opts...) }
}

// NewMachine returns the machine service: clusters reads a machine's VSphereCluster, sessions logs in to its
// vCenter.
func NewMachine(clusters client.Reader, sessions *Sessions, opts ...MachineOption) (*Machine, error) {
	switch {
	case clusters == nil:
		return nil, errors.New("cannot create the machine service: the VSphereCluster reader must not be nil")
	case sessions == nil:
		return nil, fmt.Errorf("cannot create the machine service: %w", errNilSessions)
	}
	m := &Machine{clusters: clusters, sessions: sessions}
	for _, o := range opts {
		if o != nil {
			o(m)
		}
	}
	return m, nil
}

// vm is what a reconcile of a machine's VM needs: the resource on the cluster's vCenter, the tracker and the
// ensure options.
type vm struct {
	res     ensure.Resource[cloud.CloneSpec, *cloud.VM]
	tracker scope.ResourceTracker
	cluster *v1beta2.VSphereCluster
	opts    []ensure.Option
}

// vm returns the VM of the machine of s.
func (m *Machine) vm(ctx context.Context, s scope.MachineScoper[*v1beta2.VSphereMachine]) (vm, error) {
	vc := &v1beta2.VSphereCluster{}
	if err := scope.GetInfraCluster(ctx, m.clusters, s.Cluster(), "VSphereCluster", vc); err != nil {
		return vm{}, err
	}
	c, err := m.sessions.Client(ctx, vc)
	if err != nil {
		return vm{}, err
	}
	tracker, err := scope.ProviderIDTracker(s, s.InfraMachine(), KeyVM, ProviderID, IDFromProviderID)
	if err != nil {
		return vm{}, err
	}
	tags := ensure.WithTags(map[string]string{TagCluster: s.InfraMachine().Namespace + "/" + s.Cluster().Name})
	return vm{res: NewVMs(c, m.vmOpts...), tracker: tracker, cluster: vc,
		opts: []ensure.Option{tags, ensure.CreateOnce()}}, nil
}

// placement returns where the VM of a machine with spec in failure domain fd ("" for none) of vc is placed: the
// spec's inventory, in the domain's compute cluster. A domain vc does not have is an error that names it, retried:
// an edit of vc may add it. A spec without resourcePool and a Machine without domain is terminal.
func placement(vc *v1beta2.VSphereCluster, fd string, spec v1beta2.VSphereMachineSpec) (cloud.Inventory, error) {
	inv := cloud.Inventory{Datacenter: vc.Spec.Datacenter, Folder: spec.Folder, ResourcePool: spec.ResourcePool,
		Datastore: spec.Datastore, Network: spec.Network, Template: spec.Template}
	if fd == "" {
		if inv.ResourcePool == "" {
			return inv, step.Terminal(conditions.ReasonInvalidParameters,
				errors.New("spec.resourcePool must be set: the Machine has no spec.failureDomain to place the VM in"))
		}
		return inv, nil
	}
	domain, ok := vc.Spec.FailureDomain(fd)
	if !ok {
		return inv, fmt.Errorf("cannot place the VM: the Machine's failure domain %q is not in spec.failureDomains of VSphereCluster %q", fd, vc.Name)
	}
	return Zone(domain).In(inv), nil
}

// Reconcile ensures the VM exists and reports it.
func (m *Machine) Reconcile(ctx context.Context, s scope.MachineScoper[*v1beta2.VSphereMachine]) (step.Result, error) {
	v, err := m.vm(ctx, s)
	if err != nil {
		return step.Result{}, err
	}
	vsm := s.InfraMachine()
	// The bootstrap data is read only when the VM must be cloned: a steady-state reconcile reads the VM only.
	desired := ensure.Lazy(func(ctx context.Context) (cloud.CloneSpec, error) {
		data, format, err := s.BootstrapData(ctx) // secret: never logged, never in an error
		if err != nil {
			return cloud.CloneSpec{}, err
		}
		if format != scope.BootstrapFormatCloudConfig {
			return cloud.CloneSpec{}, step.Terminal(conditions.ReasonInvalidParameters,
				fmt.Errorf("bootstrap data of format %q: vspherecloud passes cloud-init only", format))
		}
		inv, err := placement(v.cluster, s.Machine().FailureDomain, vsm.Spec)
		if err != nil {
			return cloud.CloneSpec{}, err
		}
		spec := vsm.Spec
		return cloud.CloneSpec{Name: vsm.Name, Inventory: inv, CPUs: spec.NumCPUs, MemoryMiB: spec.MemoryMiB,
			DiskGiB: spec.DiskGiB, UserData: data}, nil
	})
	out, err := ensure.Exists(ctx, v.tracker, KeyVM, v.res, desired, v.opts...)
	if err != nil || out.ID == "" {
		return out.Result, err // no VM yet: its clone runs, or the search may still miss it
	}
	vsm.Status.Addresses = addresses(out.Observed)
	switch {
	case !out.Result.Done: // it runs, and guest tools report no address yet (the resource's PendingReporter)
		return out.Result, nil
	case out.Observed.PowerState != "poweredOn":
		return step.Result{Reason: ReasonVMPoweredOff, Message: fmt.Sprintf("VM %q is %s", out.Observed.Name, out.Observed.PowerState)}, nil
	}
	vsm.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// Delete destroys the VM, recorded in spec.providerID or found by its tags, once any clone of it has ended.
func (m *Machine) Delete(ctx context.Context, s scope.MachineScoper[*v1beta2.VSphereMachine]) (step.Result, error) {
	v, err := m.vm(ctx, s)
	if err != nil {
		return step.Result{}, err
	}
	return ensure.Deleted(ctx, v.tracker, KeyVM, v.res, v.opts...)
}

// addresses returns the addresses of a VM for status.addresses: each IP guest tools report as InternalIP, and its
// name as HostName.
func addresses(vm *cloud.VM) []contract.MachineAddress {
	out := make([]contract.MachineAddress, 0, len(vm.IPs)+1)
	for _, ip := range vm.IPs {
		out = append(out, contract.MachineAddress{Type: contract.MachineInternalIP, Address: ip})
	}
	return append(out, contract.MachineAddress{Type: contract.MachineHostName, Address: vm.Name})
}
