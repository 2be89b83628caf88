package scope

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// MachineScope is everything a provider's machine services need for one reconcile of an InfraMachine of
// type T: the object, its Machine and Cluster, the contract fields at the paths of the contract version in
// use, the bootstrap data, the ownership key, the resource-ID map and the patching. Create one per reconcile
// with NewMachineScope and finish it with Close.
type MachineScope[T client.Object] struct {
	*objectScope[T]
	machine        *unstructured.Unstructured
	machineVersion contract.Version
}

// UnstructuredMachineScope is a MachineScope over an unstructured InfraMachine.
type UnstructuredMachineScope = MachineScope[*unstructured.Unstructured]

// NewMachineScope returns the scope of infraMachine, owned by machine and cluster (core cluster.x-k8s.io
// objects of API version v1beta1 or v1beta2, as unstructured). It checks its arguments, that the Machine
// belongs to the Cluster, and that T has the fields of its contract version (spec.providerID, the
// provisioned flag, the conditions); it generates the InfraMachine's own ownership key when it has none yet.
func NewMachineScope[T client.Object](ctx context.Context, c client.Client, infraMachine T, machine, cluster *unstructured.Unstructured, opts ...Option) (*MachineScope[T], error) {
	mv, err := coreObjectVersion(machine, "Machine", "machine")
	if err != nil {
		return nil, fmt.Errorf("cannot create InfraMachine scope: %w", err)
	}
	base, err := newObjectScope(ctx, c, infraMachine, cluster, "InfraMachine", func(v contract.Version) []contract.Path {
		f := contract.InfraMachine(v)
		return []contract.Path{f.ProviderID().Path(), f.Provisioned().Path()}
	}, opts)
	if err != nil {
		return nil, err
	}
	if name, _ := contract.Machine(mv).ClusterName().Get(machine); name != cluster.GetName() {
		return nil, fmt.Errorf("cannot create InfraMachine scope: Machine %q has spec.clusterName %q, want %q: %w", machine.GetName(), name, cluster.GetName(), ErrInvalidInput)
	}
	if machine.GetNamespace() != infraMachine.GetNamespace() {
		return nil, fmt.Errorf("cannot create InfraMachine scope: Machine namespace %q differs from %q: %w", machine.GetNamespace(), infraMachine.GetNamespace(), ErrInvalidInput)
	}
	return &MachineScope[T]{objectScope: base, machine: machine, machineVersion: mv}, nil
}

// InfraMachine returns the InfraMachine; changes made to it are persisted by PatchNow and Close.
func (s *MachineScope[T]) InfraMachine() T { return s.obj }

// Object returns the InfraMachine as a client.Object.
func (s *MachineScope[T]) Object() client.Object { return s.obj }

// Machine returns the owning core Machine; treat it as read-only.
func (s *MachineScope[T]) Machine() *unstructured.Unstructured { return s.machine }

// IsControlPlane reports whether the Machine is a control-plane machine.
func (s *MachineScope[T]) IsControlPlane() bool { return contract.IsControlPlaneMachine(s.machine) }

// KubernetesVersion returns the Machine's spec.version, "" when unset.
func (s *MachineScope[T]) KubernetesVersion() string {
	v, _ := contract.Machine(s.machineVersion).Version().Get(s.machine)
	return v
}

// MachineFailureDomain returns the failure domain Cluster API chose for the Machine (spec.failureDomain),
// "" when none.
func (s *MachineScope[T]) MachineFailureDomain() string {
	fd, _ := contract.Machine(s.machineVersion).FailureDomain().Get(s.machine)
	return fd
}

// BootstrapDataSecretName returns the Machine's spec.bootstrap.dataSecretName, "" while the bootstrap
// provider has not written it.
func (s *MachineScope[T]) BootstrapDataSecretName() string {
	n, _ := contract.Machine(s.machineVersion).BootstrapDataSecretName().Get(s.machine)
	return n
}

// ProviderID returns the InfraMachine's spec.providerID, "" when unset.
func (s *MachineScope[T]) ProviderID() string {
	id, _, _ := getField(s.obj, s.fields().ProviderID())
	return id
}

// SetProviderID sets spec.providerID, e.g. "memcloud://vm-123"; it must not be empty.
func (s *MachineScope[T]) SetProviderID(id string) error {
	if id == "" {
		return fmt.Errorf("cannot set spec.providerID of %s: must not be empty: %w", s.patcher.desc, ErrInvalidInput)
	}
	return setField(s.obj, s.fields().ProviderID(), s.version, id)
}

// Provisioned reports whether the InfraMachine says its infrastructure is provisioned.
func (s *MachineScope[T]) Provisioned() bool {
	ok, _, _ := getField(s.obj, s.fields().Provisioned())
	return ok
}

// SetProvisioned sets the provisioned flag at the path of the contract version.
func (s *MachineScope[T]) SetProvisioned(provisioned bool) error {
	return setField(s.obj, s.fields().Provisioned(), s.version, provisioned)
}

// Addresses returns status.addresses.
func (s *MachineScope[T]) Addresses() []contract.MachineAddress {
	a, _, _ := getField(s.obj, s.fields().Addresses())
	return a
}

// SetAddresses sets status.addresses; every address needs a type and a value.
func (s *MachineScope[T]) SetAddresses(addrs []contract.MachineAddress) error {
	for i, a := range addrs {
		if a.Type == "" || a.Address == "" {
			return fmt.Errorf("cannot set status.addresses of %s: item %d: type %q and address %q must both be set: %w", s.patcher.desc, i, a.Type, a.Address, ErrInvalidInput)
		}
	}
	return setField(s.obj, s.fields().Addresses(), s.version, addrs)
}

// FailureDomain returns the InfraMachine's status.failureDomain, "" when unset.
func (s *MachineScope[T]) FailureDomain() string {
	fd, _, _ := getField(s.obj, s.fields().FailureDomain())
	return fd
}

// SetFailureDomain sets status.failureDomain, the failure domain the machine was placed in.
func (s *MachineScope[T]) SetFailureDomain(fd string) error {
	return setField(s.obj, s.fields().FailureDomain(), s.version, fd)
}

func (s *MachineScope[T]) fields() contract.InfraMachineFields {
	return contract.InfraMachine(s.version)
}
