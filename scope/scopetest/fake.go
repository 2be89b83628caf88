package scopetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/scope"
)

// FakeObject is the state a fake scope keeps for one infra object of type T: the object itself, the
// ownership key, the resource IDs, the pending notes (in the object's annotations, as the real scopes keep
// them) and every checkpoint. Set the exported fields before the test; read the checkpoints after it. It is
// not safe for concurrent use.
type FakeObject[T client.Object] struct {
	// Object is the infra object the service reads and writes.
	Object T
	// OwnershipKeyValue is the persisted ownership key; empty means not persisted yet, and OwnershipKey
	// returns scope.ErrOwnershipKeyNotPersisted.
	OwnershipKeyValue string
	// Version is the contract version (contract.V1Beta2 when empty).
	Version contract.Version
	// ClusterInfo is what Cluster returns.
	ClusterInfo scope.ClusterInfo
	// PatchErr, when set, is returned by PatchNow and PatchSpecNow, which then record nothing.
	PatchErr error

	ids         map[string]string // resource IDs when T has no resource-ID map
	checkpoints []Checkpoint[T]
}

// Checkpoint is the object as one PatchNow or PatchSpecNow persisted it.
type Checkpoint[T client.Object] struct {
	// Object is a deep copy of the object at the checkpoint.
	Object T
	// SpecOnly is true for PatchSpecNow (metadata and spec only).
	SpecOnly bool
	// ResourceIDs is a copy of the resource-ID map at the checkpoint, wherever the fake keeps it.
	ResourceIDs map[string]string
}

// OwnershipKey returns OwnershipKeyValue, or scope.ErrOwnershipKeyNotPersisted when it is empty.
func (f *FakeObject[T]) OwnershipKey() (string, error) {
	if f.OwnershipKeyValue == "" {
		return "", fmt.Errorf("cannot use the ownership key of the fake object: %w", scope.ErrOwnershipKeyNotPersisted)
	}
	return f.OwnershipKeyValue, nil
}

// ResourceID returns the ID recorded for key: in the object's map when T implements
// scope.ResourceIDsAccessor, as the real scopes keep it, else in the fake's own map.
func (f *FakeObject[T]) ResourceID(key string) (string, bool) {
	id, ok := f.resourceIDs()[key]
	return id, ok && id != ""
}

// SetResourceID records id for key, with the real scopes' validation.
func (f *FakeObject[T]) SetResourceID(key, id string) error {
	if err := scope.ValidateResourceKey(key); err != nil {
		return err
	}
	if id == "" {
		return fmt.Errorf("cannot record the resource ID of %q: id must not be empty: %w", key, scope.ErrInvalidInput)
	}
	m := f.resourceIDs()
	if m == nil {
		m = map[string]string{}
	}
	m[key] = id
	f.setResourceIDs(m)
	return nil
}

// DeleteResourceID forgets key.
func (f *FakeObject[T]) DeleteResourceID(key string) error {
	m := f.resourceIDs()
	delete(m, key)
	f.setResourceIDs(m)
	return nil
}

// Pending returns the note recorded for key in the annotation scope.PendingAnnotationPrefix + key.
func (f *FakeObject[T]) Pending(key string) (string, bool) {
	note, ok := f.Object.GetAnnotations()[scope.PendingAnnotationPrefix+key]
	return note, ok && note != ""
}

// SetPending records note for key in the object's annotations, with the real scopes' validation.
func (f *FakeObject[T]) SetPending(key, note string) error {
	if err := scope.ValidatePendingNote(key, note); err != nil {
		return err
	}
	a := f.Object.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[scope.PendingAnnotationPrefix+key] = note
	f.Object.SetAnnotations(a)
	return nil
}

// ClearPending removes the note of key from the object's annotations.
func (f *FakeObject[T]) ClearPending(key string) error {
	a := f.Object.GetAnnotations()
	delete(a, scope.PendingAnnotationPrefix+key)
	f.Object.SetAnnotations(a)
	return nil
}

// PatchNow records a checkpoint of the whole object.
func (f *FakeObject[T]) PatchNow(context.Context) error { return f.checkpoint(false) }

// PatchSpecNow records a checkpoint of metadata and spec.
func (f *FakeObject[T]) PatchSpecNow(context.Context) error { return f.checkpoint(true) }

// Cluster returns ClusterInfo.
func (f *FakeObject[T]) Cluster() scope.ClusterInfo { return f.ClusterInfo }

// ContractVersion returns Version, contract.V1Beta2 when empty.
func (f *FakeObject[T]) ContractVersion() contract.Version {
	if f.Version == "" {
		return contract.V1Beta2
	}
	return f.Version
}

// Checkpoints returns the checkpoints recorded so far, oldest first.
func (f *FakeObject[T]) Checkpoints() []Checkpoint[T] { return f.checkpoints }

// PersistedResourceID returns the ID key had at the last checkpoint that persisted status (PatchNow): what
// a crash right now would leave on the API server.
func (f *FakeObject[T]) PersistedResourceID(key string) (string, bool) {
	for i := len(f.checkpoints) - 1; i >= 0; i-- {
		cp := f.checkpoints[i]
		if cp.SpecOnly {
			continue
		}
		id, found := cp.ResourceIDs[key]
		return id, found
	}
	return "", false
}

// PersistedPending returns the note key had at the last checkpoint (PatchNow or PatchSpecNow: notes are
// metadata): what a crash right now would leave on the API server.
func (f *FakeObject[T]) PersistedPending(key string) (string, bool) {
	if len(f.checkpoints) == 0 {
		return "", false
	}
	note, ok := f.checkpoints[len(f.checkpoints)-1].Object.GetAnnotations()[scope.PendingAnnotationPrefix+key]
	return note, ok && note != ""
}

func (f *FakeObject[T]) checkpoint(specOnly bool) error {
	if f.PatchErr != nil {
		return f.PatchErr
	}
	c, ok := f.Object.DeepCopyObject().(T)
	if !ok {
		return errors.New("cannot copy the fake object: DeepCopyObject returned another type")
	}
	f.checkpoints = append(f.checkpoints, Checkpoint[T]{Object: c, SpecOnly: specOnly, ResourceIDs: maps.Clone(f.resourceIDs())})
	return nil
}

func (f *FakeObject[T]) resourceIDs() map[string]string {
	if acc, ok := any(f.Object).(scope.ResourceIDsAccessor); ok {
		return acc.GetResourceIDs()
	}
	return f.ids
}

// setResourceIDs stores m as the real scopes do: into the object's own map when T has one (an emptied map
// stays the object's), else into the fake's.
func (f *FakeObject[T]) setResourceIDs(m map[string]string) {
	if acc, ok := any(f.Object).(scope.ResourceIDsAccessor); ok {
		acc.SetResourceIDs(m)
		return
	}
	f.ids = maps.Clone(m)
}

// FakeClusterScope is a state-backed scope.ClusterScoper[T] for the tests of cluster services: the service
// reads and writes Object, and the test asserts on Object and the checkpoints afterwards.
type FakeClusterScope[T client.Object] struct {
	FakeObject[T]
}

// InfraCluster returns Object.
func (f *FakeClusterScope[T]) InfraCluster() T { return f.Object }

// FakeMachineScope is a state-backed scope.MachineScoper[T] for the tests of machine services.
type FakeMachineScope[T client.Object] struct {
	FakeObject[T]
	// MachineInfo is what Machine returns.
	MachineInfo scope.MachineInfo
	// BootstrapValue and BootstrapFormat are what BootstrapData returns, BootstrapErr its error; an empty
	// value without error is scope.ErrBootstrapDataNotReady.
	BootstrapValue  []byte
	BootstrapFormat scope.BootstrapFormat
	BootstrapErr    error
	// BootstrapReads counts the calls to BootstrapData.
	BootstrapReads int
}

// InfraMachine returns Object.
func (f *FakeMachineScope[T]) InfraMachine() T { return f.Object }

// Machine returns MachineInfo.
func (f *FakeMachineScope[T]) Machine() scope.MachineInfo { return f.MachineInfo }

// BootstrapData returns BootstrapValue and BootstrapFormat (scope.BootstrapFormatCloudConfig when empty).
func (f *FakeMachineScope[T]) BootstrapData(context.Context) ([]byte, scope.BootstrapFormat, error) {
	f.BootstrapReads++
	return fakeBootstrapData("machine", f.BootstrapValue, f.BootstrapFormat, f.BootstrapErr)
}

// fakeBootstrapData is BootstrapData of the fakes of owner.
func fakeBootstrapData(owner string, value []byte, format scope.BootstrapFormat, err error) ([]byte, scope.BootstrapFormat, error) {
	switch {
	case err != nil:
		return nil, "", err
	case len(value) == 0:
		return nil, "", fmt.Errorf("cannot read the bootstrap data of the fake %s: %w", owner, scope.ErrBootstrapDataNotReady)
	case format == "":
		return value, scope.BootstrapFormatCloudConfig, nil
	}
	return value, format, nil
}

// FakeMachinePoolScope is a state-backed scope.MachinePoolScoper[T]: the Object's fields are the state, so
// T must implement contract.ProviderIDListAccessor and contract.ReplicasAccessor for SetInstances.
type FakeMachinePoolScope[T client.Object] struct {
	FakeObject[T]
	// PoolInfo is what MachinePool returns.
	PoolInfo scope.MachinePoolInfo
	// BootstrapValue and BootstrapFormat are what BootstrapData returns, BootstrapErr its error; an empty
	// value without error is scope.ErrBootstrapDataNotReady.
	BootstrapValue  []byte
	BootstrapFormat scope.BootstrapFormat
	BootstrapErr    error
	// BootstrapReads counts the calls to BootstrapData.
	BootstrapReads int
}

// InfraMachinePool returns Object.
func (f *FakeMachinePoolScope[T]) InfraMachinePool() T { return f.Object }

// MachinePool returns PoolInfo.
func (f *FakeMachinePoolScope[T]) MachinePool() scope.MachinePoolInfo { return f.PoolInfo }

// BootstrapData returns BootstrapValue and BootstrapFormat (scope.BootstrapFormatCloudConfig when empty).
func (f *FakeMachinePoolScope[T]) BootstrapData(context.Context) ([]byte, scope.BootstrapFormat, error) {
	f.BootstrapReads++
	return fakeBootstrapData("machine pool", f.BootstrapValue, f.BootstrapFormat, f.BootstrapErr)
}

// SetInstances sets the Object's spec.providerIDList, sorted, and status.replicas, as the real scope does.
func (f *FakeMachinePoolScope[T]) SetInstances(providerIDs []string) error {
	list, ok1 := any(f.Object).(contract.ProviderIDListAccessor)
	replicas, ok2 := any(f.Object).(contract.ReplicasAccessor)
	if !ok1 || !ok2 {
		return fmt.Errorf("cannot set the instances of the fake machine pool: %T implements no contract.ProviderIDListAccessor or ReplicasAccessor", f.Object)
	}
	ids := slices.Sorted(slices.Values(providerIDs))
	if len(ids) == 0 {
		ids = nil
	}
	list.SetProviderIDList(ids)
	replicas.SetStatusReplicas(int32(len(ids))) //nolint:gosec // a test's list is small
	return nil
}

var (
	_ scope.MachinePoolScoper[client.Object] = (*FakeMachinePoolScope[client.Object])(nil)
	_ scope.ClusterScoper[client.Object]     = (*FakeClusterScope[client.Object])(nil)
	_ scope.MachineScoper[client.Object]     = (*FakeMachineScope[client.Object])(nil)
	_ scope.SpecPatcher                      = (*FakeMachineScope[client.Object])(nil)
	_ scope.PendingTracker                   = (*FakeClusterScope[client.Object])(nil)
	_ scope.PendingTracker                   = (*FakeMachineScope[client.Object])(nil)
	_ scope.PendingTracker                   = (*FakeMachinePoolScope[client.Object])(nil)
)
