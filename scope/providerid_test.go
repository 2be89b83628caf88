package scope_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/mocks"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

func fooFormat(id string) string { return "foo://" + id }

func fooParse(pid string) (string, error) {
	id, ok := strings.CutPrefix(pid, "foo://")
	if !ok || id == "" {
		return "", errors.New("not a foo provider ID")
	}
	return id, nil
}

// newPersistedMachineScope creates a FooMachine whose ownership key is persisted, and a scope of it over cc.
func newPersistedMachineScope(t *testing.T, cc client.Client) (*scope.MachineScope[*testtypes.FooMachine], *testtypes.FooMachine) {
	t.Helper()
	ns := env.Namespace(t, "scope")
	ctx := context.Background()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	machine := newMachine(t, env.Client, ns, "m1", "v1beta2", "c1", nil)
	obj := fooMachine(ns, "m1")
	require.NoError(t, env.Client.Create(ctx, obj))
	s, err := scope.NewMachineScope(ctx, cc, obj, machine, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	require.NoError(t, s.PatchNow(ctx), "persist the ownership key")
	return s, obj
}

func TestPatchSpecNowLeavesStatusForClose(t *testing.T) {
	ctx := t.Context()
	cc := scopetest.NewCountingClient(env.Client)
	s, obj := newPersistedMachineScope(t, cc)
	cc.Reset()

	require.NoError(t, s.SetProviderID("foo://i-1"))
	require.NoError(t, s.SetResourceID("disk", "d-1"))
	_, err := conditions.SetTrue(s.Conditions(), "VMReady", "Created", "")
	require.NoError(t, err)
	require.NoError(t, s.PatchSpecNow(ctx))
	assert.Equal(t, []scopetest.Write{{Verb: "patch", Kind: "*testtypes.FooMachine", Name: obj.Namespace + "/m1"}}, cc.Log(),
		"one write, without the status subresource")

	onServer := &testtypes.FooMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), onServer))
	assert.Equal(t, "foo://i-1", onServer.Spec.ProviderID)
	assert.Empty(t, onServer.Status.Resources, "status waits for Close")
	assert.Empty(t, onServer.Status.Conditions)

	require.NoError(t, s.PatchSpecNow(ctx))
	assert.Equal(t, 1, cc.Writes(), "nothing left in spec: no write")

	require.NoError(t, s.Close(ctx))
	assert.Equal(t, 2, cc.Writes(), "Close sends the status in one write")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), onServer))
	assert.Equal(t, map[string]string{"disk": "d-1"}, onServer.Status.Resources)
	require.NotEmpty(t, onServer.Status.Conditions)
	for _, c := range onServer.Status.Conditions {
		assert.Equal(t, onServer.Generation, c.ObservedGeneration, "conditions observe the generation the spec patch made")
	}
}

// newPersistedProviderIDTracker is newPersistedMachineScope with a ProviderIDTracker of key "vm" over the
// scope, and the counting client reset.
func newPersistedProviderIDTracker(t *testing.T) (*scopetest.CountingClient, *scope.MachineScope[*testtypes.FooMachine], *testtypes.FooMachine, scope.ResourceTracker) {
	t.Helper()
	cc := scopetest.NewCountingClient(env.Client)
	s, obj := newPersistedMachineScope(t, cc)
	tr, err := scope.ProviderIDTracker(s, s.InfraMachine(), "vm", fooFormat, fooParse)
	require.NoError(t, err)
	cc.Reset()
	return cc, s, obj, tr
}

func TestProviderIDTrackerCheckpointsInOneWrite(t *testing.T) {
	ctx := t.Context()
	cc, s, obj, tr := newPersistedProviderIDTracker(t)

	_, ok := tr.ResourceID("vm")
	assert.False(t, ok, "no provider ID yet")
	require.NoError(t, tr.SetResourceID("vm", "i-7"))
	id, ok := tr.ResourceID("vm")
	require.True(t, ok)
	assert.Equal(t, "i-7", id)
	assert.Equal(t, "foo://i-7", s.ProviderID())
	_, err := conditions.SetFalse(s.Conditions(), "VMReady", "Booting", "")
	require.NoError(t, err)
	require.NoError(t, tr.PatchNow(ctx))
	assert.Equal(t, 1, cc.Writes(), "the checkpoint is the spec patch only")

	require.NoError(t, tr.DeleteResourceID("vm"))
	assert.Equal(t, "foo://i-7", s.ProviderID(), "the provider ID is set once and kept")
	err = tr.SetResourceID("vm", "i-8")
	require.ErrorIs(t, err, scope.ErrInvalidInput)
	assert.Contains(t, err.Error(), `already holds "foo://i-7"`)

	// Another key goes to the resource-ID map, and its checkpoint carries status.
	require.NoError(t, tr.SetResourceID("disk", "d-1"))
	got, ok := tr.ResourceID("disk")
	require.True(t, ok)
	assert.Equal(t, "d-1", got)
	require.NoError(t, tr.PatchNow(ctx))
	onServer := &testtypes.FooMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), onServer))
	assert.Equal(t, map[string]string{"disk": "d-1"}, onServer.Status.Resources)
	assert.Equal(t, 2, cc.Writes())
	require.NoError(t, tr.DeleteResourceID("disk"))
	_, ok = tr.ResourceID("disk")
	assert.False(t, ok)
}

func TestProviderIDTrackerRejectsBadInput(t *testing.T) {
	ctrl := gomock.NewController(t)
	tracker := mocks.NewMockResourceTracker(ctrl)
	obj := fooMachine("ns", "m")
	tests := []struct {
		name    string
		tracker scope.ResourceTracker
		obj     contract.ProviderIDAccessor
		key     string
		format  func(string) string
		parse   func(string) (string, error)
		wantMsg string
	}{
		{"nil tracker", nil, obj, "vm", fooFormat, fooParse, "tracker and object must not be nil"},
		{"nil object", tracker, nil, "vm", fooFormat, fooParse, "tracker and object must not be nil"},
		{"nil format", tracker, obj, "vm", nil, fooParse, "format and parse"},
		{"nil parse", tracker, obj, "vm", fooFormat, nil, "format and parse"},
		{"bad key", tracker, obj, "VM!", fooFormat, fooParse, `"VM!"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scope.ProviderIDTracker(tt.tracker, tt.obj, tt.key, tt.format, tt.parse)
			require.ErrorIs(t, err, scope.ErrInvalidInput)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestProviderIDTrackerOnATrackerWithoutSpecPatch(t *testing.T) {
	ctrl := gomock.NewController(t)
	m := mocks.NewMockResourceTracker(ctrl)
	obj := fooMachine("ns", "m")
	tr, err := scope.ProviderIDTracker(m, obj, "vm", fooFormat, fooParse)
	require.NoError(t, err)

	obj.Spec.ProviderID = "bar://x"
	_, ok := tr.ResourceID("vm")
	assert.False(t, ok, "a provider ID parse rejects is no ID")

	obj.Spec.ProviderID = ""
	require.NoError(t, tr.SetResourceID("vm", "i-1"))
	assert.Equal(t, "foo://i-1", obj.Spec.ProviderID, "written through the object's accessor")
	assert.ErrorIs(t, tr.SetResourceID("vm", ""), scope.ErrInvalidInput)

	// A format whose result parse does not give back the ID is refused before anything is written.
	bad, err := scope.ProviderIDTracker(m, fooMachine("ns", "m2"), "vm", func(id string) string { return "foo://x" + id }, fooParse)
	require.NoError(t, err)
	assert.ErrorContains(t, bad.SetResourceID("vm", "i-2"), "does not parse back")

	// Other keys go to the wrapped tracker.
	m.EXPECT().ResourceID("disk").Return("d-1", true)
	id, ok := tr.ResourceID("disk")
	assert.True(t, ok)
	assert.Equal(t, "d-1", id)

	m.EXPECT().PatchNow(gomock.Any()).Return(nil)
	require.NoError(t, tr.PatchNow(t.Context()), "falls back to PatchNow")
}

func TestProviderIDTrackerOnAnUnstructuredMachine(t *testing.T) {
	ctx := t.Context()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(testtypes.GroupVersion.WithKind("FooMachine"))
	u.SetNamespace("ns")
	u.SetName("m1")
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(u).WithStatusSubresource(u).Build()
	s, err := scope.NewUnstructuredMachineScope(ctx, c, u, newMachine(t, nil, "ns", "m1", "v1beta2", "c1", nil), newCluster(t, nil, "ns", "c1", "v1beta2", nil),
		scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	tr, err := scope.ProviderIDTracker(s, contract.Unstructured(s.InfraMachine(), s.ContractVersion()), "vm", fooFormat, fooParse)
	require.NoError(t, err)

	require.NoError(t, tr.SetResourceID("vm", "i-3"))
	pid, _, _ := unstructured.NestedString(u.Object, "spec", "providerID")
	assert.Equal(t, "foo://i-3", pid)
	assert.Equal(t, "foo://i-3", s.ProviderID())
	id, ok := tr.ResourceID("vm")
	assert.True(t, ok)
	assert.Equal(t, "i-3", id)
	require.NoError(t, tr.PatchNow(ctx))

	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(u.GroupVersionKind())
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(u), got))
	pid, _, _ = unstructured.NestedString(got.Object, "spec", "providerID")
	assert.Equal(t, "foo://i-3", pid, "the checkpoint wrote spec")
}

func TestPatchSpecRejectsNil(t *testing.T) {
	assert.ErrorIs(t, scope.PatchSpec(t.Context(), nil), scope.ErrInvalidInput)
}

func TestProviderIDTrackerPassesOnPendingNotes(t *testing.T) {
	tracker := scopetest.NewTracker("key1")
	fakeScope := &scopetest.FakeMachineScope[*testtypes.FooMachine]{FakeObject: scopetest.FakeObject[*testtypes.FooMachine]{Object: fooMachine("ns", "m")}}
	tests := []struct {
		name      string
		wrapped   scope.ResourceTracker
		persisted func(key string) (string, bool) // nil: the wrapped tracker keeps no notes
	}{
		{"scopetest.Tracker", tracker, func(key string) (string, bool) {
			note, ok := tracker.PersistedNotes()[key]
			return note, ok
		}},
		{"fake scope (SpecPatcher)", fakeScope, fakeScope.PersistedPending},
		{"tracker without notes", mocks.NewMockResourceTracker(gomock.NewController(t)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			tr, err := scope.ProviderIDTracker(tt.wrapped, fooMachine("ns", "m"), "vm", fooFormat, fooParse)
			require.NoError(t, err)
			pt, ok := tr.(scope.PendingTracker)
			if tt.persisted == nil {
				assert.False(t, ok, "a tracker over one without notes keeps no notes either")
				return
			}
			require.True(t, ok, "a tracker over a PendingTracker is one")
			wrapped := tt.wrapped.(scope.PendingTracker)

			require.NoError(t, pt.SetPending("vm", "op-1"), "the provider ID's key too")
			require.NoError(t, pt.SetPending("disk", "op-2"))
			require.ErrorIs(t, pt.SetPending("disk", ""), scope.ErrInvalidInput)
			for key, want := range map[string]string{"vm": "op-1", "disk": "op-2"} {
				note, ok := pt.Pending(key)
				assert.True(t, ok)
				assert.Equal(t, want, note)
				note, _ = wrapped.Pending(key)
				assert.Equal(t, want, note, "kept by the wrapped tracker")
			}
			require.NoError(t, tr.PatchNow(ctx))
			note, ok := tt.persisted("vm")
			assert.True(t, ok, "the checkpoint persists the notes")
			assert.Equal(t, "op-1", note)

			require.NoError(t, pt.ClearPending("vm"))
			_, ok = wrapped.Pending("vm")
			assert.False(t, ok)
			require.NoError(t, tr.PatchNow(ctx))
			_, ok = tt.persisted("vm")
			assert.False(t, ok, "a cleared note alone is checkpointed")
		})
	}
}

// TestProviderIDTrackerCheckpointsANoteInOneWrite follows ensure.Exists: a note before the create, then the
// provider ID and the note's removal, each checkpoint one spec patch.
func TestProviderIDTrackerCheckpointsANoteInOneWrite(t *testing.T) {
	ctx := t.Context()
	cc, _, obj, tr := newPersistedProviderIDTracker(t)
	pt, ok := tr.(scope.PendingTracker)
	require.True(t, ok, "the scopes keep notes")
	onServer := func() *testtypes.FooMachine {
		got := &testtypes.FooMachine{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
		return got
	}
	specPatch := scopetest.Write{Verb: "patch", Kind: "*testtypes.FooMachine", Name: obj.Namespace + "/m1"}

	require.NoError(t, pt.SetPending("vm", "op-1"))
	require.NoError(t, tr.PatchNow(ctx))
	assert.Equal(t, []scopetest.Write{specPatch}, cc.Log())
	assert.Equal(t, "op-1", onServer().Annotations[scope.PendingAnnotationPrefix+"vm"])

	require.NoError(t, tr.SetResourceID("vm", "i-1"))
	require.NoError(t, pt.ClearPending("vm"))
	require.NoError(t, tr.PatchNow(ctx))
	assert.Equal(t, []scopetest.Write{specPatch, specPatch}, cc.Log())
	got := onServer()
	assert.Equal(t, "foo://i-1", got.Spec.ProviderID)
	assert.NotContains(t, got.Annotations, scope.PendingAnnotationPrefix+"vm")
}
