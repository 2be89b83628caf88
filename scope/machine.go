package scope

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// MachineScope is everything a provider's machine services need for one reconcile of an InfraMachine of
// type T: the object, its Machine and Cluster, the contract fields, the bootstrap data, the ownership key,
// the resource-ID map and the patching. Create one per reconcile with NewMachineScope and finish it with Close.
type MachineScope[T client.Object] struct {
	objectScope[T]
	machine MachineInfo
}

// UnstructuredMachineScope is a MachineScope over an unstructured InfraMachine.
type UnstructuredMachineScope = MachineScope[*unstructured.Unstructured]

// NewMachineScope returns the scope of infraMachine, owned by machine and cluster (core cluster.x-k8s.io
// objects of API version v1beta1 or v1beta2, as unstructured). It checks that the Machine belongs to the
// Cluster. T satisfies contract.InfraMachineObject; where it also implements contract.AddressesAccessor,
// contract.StatusFailureDomainAccessor and ResourceIDsAccessor, the setters that need them work. The
// InfraMachine gets its own ownership key.
func NewMachineScope[T contract.InfraMachineObject](ctx context.Context, c client.Client, infraMachine T, machine, cluster *unstructured.Unstructured, opts ...Option) (*MachineScope[T], error) {
	return newMachineScope(ctx, c, infraMachine, machine, cluster, opts)
}

// NewUnstructuredMachineScope returns the scope of an unstructured InfraMachine, read and written at the
// paths of its contract version, like NewUnstructuredClusterScope.
func NewUnstructuredMachineScope(ctx context.Context, c client.Client, infraMachine, machine, cluster *unstructured.Unstructured, opts ...Option) (*UnstructuredMachineScope, error) {
	return newMachineScope(ctx, c, infraMachine, machine, cluster, opts)
}

func newMachineScope[T client.Object](ctx context.Context, c client.Client, infraMachine T, machine, cluster *unstructured.Unstructured, opts []Option) (*MachineScope[T], error) {
	info, clusterName, err := machineInfo(machine)
	if err != nil {
		return nil, fmt.Errorf("cannot create InfraMachine scope: %w", err)
	}
	s := &MachineScope[T]{machine: info}
	if err := s.init(ctx, c, infraMachine, cluster, "InfraMachine", opts); err != nil {
		return nil, err
	}
	if clusterName != cluster.GetName() {
		return nil, fmt.Errorf("cannot create InfraMachine scope: Machine %q has spec.clusterName %q, want %q: %w", machine.GetName(), clusterName, cluster.GetName(), ErrInvalidInput)
	}
	if machine.GetNamespace() != infraMachine.GetNamespace() {
		return nil, fmt.Errorf("cannot create InfraMachine scope: Machine namespace %q differs from %q: %w", machine.GetNamespace(), infraMachine.GetNamespace(), ErrInvalidInput)
	}
	return s, nil
}

// machineInfo decodes the facts of a core Machine, and its spec.clusterName.
func machineInfo(u *unstructured.Unstructured) (info MachineInfo, clusterName string, err error) {
	mv, err := coreObjectVersion(u, "Machine", "machine")
	if err != nil {
		return MachineInfo{}, "", err
	}
	f := contract.Machine(mv)
	info = MachineInfo{Name: u.GetName(), ControlPlane: contract.IsControlPlaneMachine(u), Object: u}
	err = errors.Join(
		read(u, f.ClusterName(), &clusterName),
		read(u, f.Version(), &info.Version),
		read(u, f.FailureDomain(), &info.FailureDomain),
		read(u, f.BootstrapDataSecretName(), &info.BootstrapDataSecretName),
	)
	if err != nil {
		return MachineInfo{}, "", fmt.Errorf("cannot read Machine %q: %w", u.GetName(), err)
	}
	return info, clusterName, nil
}

// InfraMachine returns the InfraMachine; changes made to it are persisted by PatchNow and Close.
func (s *MachineScope[T]) InfraMachine() T { return s.obj }

// Object returns the InfraMachine as a client.Object.
func (s *MachineScope[T]) Object() client.Object { return s.obj }

// Machine returns the owning Machine's facts.
func (s *MachineScope[T]) Machine() MachineInfo { return s.machine }

// ProviderID returns the InfraMachine's spec.providerID, "" when unset.
func (s *MachineScope[T]) ProviderID() string { return s.fields.providerID.GetProviderID() }

// SetProviderID sets spec.providerID, e.g. "memcloud://vm-123"; it must not be empty.
func (s *MachineScope[T]) SetProviderID(id string) error {
	if id == "" {
		return fmt.Errorf("cannot set spec.providerID of %s: must not be empty: %w", s.desc, ErrInvalidInput)
	}
	s.fields.providerID.SetProviderID(id)
	return s.writeError()
}

// Addresses returns status.addresses.
func (s *MachineScope[T]) Addresses() ([]contract.MachineAddress, error) {
	if err := missing(s.obj, s.fields.addresses != nil, accAddresses); err != nil {
		return nil, err
	}
	return s.fields.addresses.GetAddresses(), nil
}

// SetAddresses sets status.addresses; every address needs a type and a value.
func (s *MachineScope[T]) SetAddresses(addrs []contract.MachineAddress) error {
	if err := missing(s.obj, s.fields.addresses != nil, accAddresses); err != nil {
		return fmt.Errorf("cannot set status.addresses of %s: %w", s.desc, err)
	}
	for i, a := range addrs {
		if a.Type == "" || a.Address == "" {
			return fmt.Errorf("cannot set status.addresses of %s: item %d: type %q and address %q must both be set: %w", s.desc, i, a.Type, a.Address, ErrInvalidInput)
		}
	}
	s.fields.addresses.SetAddresses(addrs)
	return s.writeError()
}

// FailureDomain returns the InfraMachine's status.failureDomain, "" when unset.
func (s *MachineScope[T]) FailureDomain() (string, error) {
	if err := missing(s.obj, s.fields.statusFD != nil, accStatusFD); err != nil {
		return "", err
	}
	return s.fields.statusFD.GetStatusFailureDomain(), nil
}

// SetFailureDomain sets status.failureDomain, the failure domain the machine was placed in.
func (s *MachineScope[T]) SetFailureDomain(fd string) error {
	if err := missing(s.obj, s.fields.statusFD != nil, accStatusFD); err != nil {
		return fmt.Errorf("cannot set status.failureDomain of %s: %w", s.desc, err)
	}
	s.fields.statusFD.SetStatusFailureDomain(fd)
	return s.writeError()
}
