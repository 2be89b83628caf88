package scopetest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

func newFakeMachine() *scopetest.FakeMachineScope[*testtypes.FooMachine] {
	return &scopetest.FakeMachineScope[*testtypes.FooMachine]{
		FakeObject: scopetest.FakeObject[*testtypes.FooMachine]{
			Object:            &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m1"}},
			OwnershipKeyValue: "key1",
			ClusterInfo:       scope.ClusterInfo{Name: "c1", InfrastructureProvisioned: true},
		},
		MachineInfo: scope.MachineInfo{Name: "m1", BootstrapDataSecretName: "m1-data"},
	}
}

func TestFakeMachineScopeKeepsIDsInTheObjectAndRecordsCheckpoints(t *testing.T) {
	ctx := t.Context()
	f := newFakeMachine()
	var s scope.MachineScoper[*testtypes.FooMachine] = f

	key, err := s.OwnershipKey()
	require.NoError(t, err)
	assert.Equal(t, "key1", key)
	assert.Equal(t, contract.V1Beta2, s.ContractVersion(), "the default version")
	assert.Equal(t, "c1", s.Cluster().Name)
	assert.Equal(t, "m1-data", s.Machine().BootstrapDataSecretName)
	assert.Same(t, f.Object, s.InfraMachine())

	require.NoError(t, s.SetResourceID("vm", "i-1"))
	assert.Equal(t, map[string]string{"vm": "i-1"}, f.Object.Status.Resources, "kept where the real scope keeps it")
	_, persisted := f.PersistedResourceID("vm")
	assert.False(t, persisted, "no checkpoint yet")
	require.NoError(t, s.PatchNow(ctx))
	id, persisted := f.PersistedResourceID("vm")
	assert.True(t, persisted)
	assert.Equal(t, "i-1", id)

	// A checkpoint is a copy: later changes do not reach it.
	require.NoError(t, s.DeleteResourceID("vm"))
	_, ok := s.ResourceID("vm")
	assert.False(t, ok)
	assert.NotNil(t, f.Object.Status.Resources, "an emptied map stays the object's, as with the real scope")
	assert.Empty(t, f.Object.Status.Resources)
	id, _ = f.PersistedResourceID("vm")
	assert.Equal(t, "i-1", id)
	require.Len(t, f.Checkpoints(), 1)
	assert.False(t, f.Checkpoints()[0].SpecOnly)

	assert.ErrorIs(t, s.SetResourceID("Bad Key", "x"), scope.ErrInvalidInput)
	assert.ErrorIs(t, s.SetResourceID("vm", ""), scope.ErrInvalidInput)

	f.OwnershipKeyValue = ""
	_, err = s.OwnershipKey()
	assert.ErrorIs(t, err, scope.ErrOwnershipKeyNotPersisted)

	f.PatchErr = errors.New("api server down")
	assert.ErrorIs(t, s.PatchNow(ctx), f.PatchErr)
	assert.Len(t, f.Checkpoints(), 1, "a failed patch records nothing")
}

func TestFakeMachineScopeWithProviderIDTrackerCheckpointsSpecOnly(t *testing.T) {
	ctx := t.Context()
	f := newFakeMachine()
	format := func(id string) string { return "foo://" + id }
	parse := func(pid string) (string, error) {
		id, ok := strings.CutPrefix(pid, "foo://")
		if !ok {
			return "", errors.New("not a foo provider ID")
		}
		return id, nil
	}
	tr, err := scope.ProviderIDTracker(f, f.InfraMachine(), "vm", format, parse)
	require.NoError(t, err)
	require.NoError(t, tr.SetResourceID("vm", "i-9"))
	require.NoError(t, tr.PatchNow(ctx))
	require.Len(t, f.Checkpoints(), 1)
	cp := f.Checkpoints()[0]
	assert.True(t, cp.SpecOnly, "the fake is a SpecPatcher, as the real scope")
	assert.Equal(t, "foo://i-9", cp.Object.Spec.ProviderID)
	_, persisted := f.PersistedResourceID("vm")
	assert.False(t, persisted, "a spec checkpoint persists no status")
}

func TestFakeMachineScopeBootstrapData(t *testing.T) {
	tests := []struct {
		name       string
		value      string
		format     scope.BootstrapFormat
		err        error
		wantErr    error
		wantFormat scope.BootstrapFormat
	}{
		{name: "not ready", wantErr: scope.ErrBootstrapDataNotReady},
		{name: "default format", value: "#cloud-config", wantFormat: scope.BootstrapFormatCloudConfig},
		{name: "ignition", value: "{}", format: scope.BootstrapFormatIgnition, wantFormat: scope.BootstrapFormatIgnition},
		{name: "error", value: "x", err: scope.ErrBootstrapDataMalformed, wantErr: scope.ErrBootstrapDataMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMachine()
			f.BootstrapValue, f.BootstrapFormat, f.BootstrapErr = []byte(tt.value), tt.format, tt.err
			value, format, err := f.BootstrapData(t.Context())
			assert.Equal(t, 1, f.BootstrapReads)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, value)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.value, string(value))
			assert.Equal(t, tt.wantFormat, format)
		})
	}
}

func TestFakeClusterScopeOfATypeWithoutResourceIDMap(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	f := &scopetest.FakeClusterScope[*unstructured.Unstructured]{FakeObject: scopetest.FakeObject[*unstructured.Unstructured]{
		Object: u, Version: contract.V1Beta1}}
	var s scope.ClusterScoper[*unstructured.Unstructured] = f
	require.NoError(t, s.SetResourceID("vpc", "vpc-1"))
	id, ok := s.ResourceID("vpc")
	assert.True(t, ok)
	assert.Equal(t, "vpc-1", id)
	assert.Empty(t, u.Object, "the fake keeps the ID itself")
	assert.Equal(t, contract.V1Beta1, s.ContractVersion())
	assert.Same(t, u, s.InfraCluster())
}

// A type without a resource-ID map keeps its IDs in the fake, and checkpoints persist them all the same.
func TestFakeKeepsIDsOfATypeWithoutAMap(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	f := &scopetest.FakeMachineScope[*unstructured.Unstructured]{FakeObject: scopetest.FakeObject[*unstructured.Unstructured]{Object: u}}
	require.NoError(t, f.SetResourceID("vm", "i-1"))
	_, persisted := f.PersistedResourceID("vm")
	assert.False(t, persisted, "recorded, not yet checkpointed")
	require.NoError(t, f.PatchNow(t.Context()))
	id, persisted := f.PersistedResourceID("vm")
	assert.True(t, persisted)
	assert.Equal(t, "i-1", id)
	assert.Empty(t, u.Object, "the object itself is not written")
}

func TestFakeMachinePoolScope(t *testing.T) {
	ctx := t.Context()
	f := &scopetest.FakeMachinePoolScope[*testtypes.FooMachinePool]{
		FakeObject: scopetest.FakeObject[*testtypes.FooMachinePool]{Object: &testtypes.FooMachinePool{}, OwnershipKeyValue: "k"},
		PoolInfo:   scope.MachinePoolInfo{Name: "pool", Replicas: 2},
	}
	_, _, err := f.BootstrapData(ctx)
	require.ErrorIs(t, err, scope.ErrBootstrapDataNotReady, "no data yet")
	f.BootstrapValue = []byte("#cloud-config\n")
	data, format, err := f.BootstrapData(ctx)
	require.NoError(t, err)
	assert.Equal(t, "#cloud-config\n", string(data))
	assert.Equal(t, scope.BootstrapFormatCloudConfig, format)
	assert.Equal(t, 2, f.BootstrapReads)

	assert.Equal(t, int32(2), f.MachinePool().Replicas)
	require.NoError(t, f.SetInstances([]string{"foo://b", "foo://a"}))
	assert.Equal(t, []string{"foo://a", "foo://b"}, f.InfraMachinePool().Spec.ProviderIDList, "sorted, as the real scope writes it")
	assert.Equal(t, int32(2), f.Object.Status.Replicas)
	require.NoError(t, f.SetInstances(nil))
	assert.Nil(t, f.Object.Spec.ProviderIDList)
	assert.Zero(t, f.Object.Status.Replicas)

	typeless := &scopetest.FakeMachinePoolScope[*testtypes.FooMachine]{FakeObject: scopetest.FakeObject[*testtypes.FooMachine]{Object: &testtypes.FooMachine{}}}
	err = typeless.SetInstances([]string{"foo://a"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ProviderIDListAccessor")
}

func TestFakeScopesKeepNotesInAnnotations(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetAnnotations(map[string]string{"example.com/keep": "me"})
	tests := []struct {
		name  string
		fake  *scopetest.FakeObject[client.Object]
		other map[string]string // annotations besides the note
	}{
		{"typed", &scopetest.FakeObject[client.Object]{Object: &testtypes.FooMachine{}}, map[string]string{}},
		{"unstructured", &scopetest.FakeObject[client.Object]{Object: u}, map[string]string{"example.com/keep": "me"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			f := tt.fake
			require.ErrorIs(t, f.SetPending("vm", ""), scope.ErrInvalidInput, "the real scopes' validation")
			require.NoError(t, f.SetPending("vm", "op-1"))
			note, ok := f.Pending("vm")
			assert.True(t, ok)
			assert.Equal(t, "op-1", note)
			assert.Equal(t, "op-1", f.Object.GetAnnotations()[scope.PendingAnnotationPrefix+"vm"], "kept where the real scopes keep it")
			_, persisted := f.PersistedPending("vm")
			assert.False(t, persisted, "no checkpoint yet")

			require.NoError(t, f.PatchSpecNow(ctx))
			note, persisted = f.PersistedPending("vm")
			assert.True(t, persisted, "notes are metadata: a spec checkpoint carries them")
			assert.Equal(t, "op-1", note)

			require.NoError(t, f.ClearPending("vm"))
			require.NoError(t, f.ClearPending("absent"))
			_, ok = f.Pending("vm")
			assert.False(t, ok)
			f.PatchErr = errors.New("killed")
			require.Error(t, f.PatchNow(ctx))
			_, persisted = f.PersistedPending("vm")
			assert.True(t, persisted, "a failed checkpoint persists nothing")

			f.PatchErr = nil
			require.NoError(t, f.PatchNow(ctx))
			_, persisted = f.PersistedPending("vm")
			assert.False(t, persisted)
			assert.Equal(t, tt.other, f.Object.GetAnnotations(), "only the note is removed")
		})
	}
}
