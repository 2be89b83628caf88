package scope_test

import (
	"context"
	"maps"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

func TestValidatePendingNote(t *testing.T) {
	long := strings.Repeat("x", 10000)
	multibyte := "x" + strings.Repeat("é", 200) // the 64th byte is inside an "é"
	tests := []struct {
		name     string
		key      string
		note     string
		wantMsgs []string // empty: valid
		notInMsg string
	}{
		{name: "operation handle", key: "vm", note: "op-123/zone-a"},
		{name: "unicode", key: "vm", note: "créé à 10:00"},
		{name: "MaxPendingNote bytes", key: "vm", note: strings.Repeat("x", scope.MaxPendingNote)},
		{name: "empty", key: "vm", note: "", wantMsgs: []string{`"vm"`, "0 bytes", "empty"}},
		{name: "one byte too long", key: "vm", note: strings.Repeat("x", scope.MaxPendingNote+1), wantMsgs: []string{"257 bytes", "longer than 256 bytes"}},
		{
			name: "huge note is quoted cut", key: "lb", note: long,
			wantMsgs: []string{`"lb"`, "10000 bytes", `"` + strings.Repeat("x", 64) + `…"`},
			notInMsg: strings.Repeat("x", 65),
		},
		{
			name: "cut at a character boundary", key: "vm", note: multibyte,
			wantMsgs: []string{"401 bytes", `"x` + strings.Repeat("é", 31) + `…"`},
		},
		{name: "invalid UTF-8", key: "vm", note: "op-\xff", wantMsgs: []string{"4 bytes", `"op-\xff"`, "not valid UTF-8"}},
		{name: "newline", key: "vm", note: "op-1\nforged: line", wantMsgs: []string{`"op-1\nforged: line"`, "control characters"}},
		{name: "NUL", key: "vm", note: "op\x00", wantMsgs: []string{"control characters"}},
		{name: "C1 control", key: "vm", note: "op\u0085", wantMsgs: []string{"control characters"}},
		{name: "bad key", key: "VM/1", note: "op-1", wantMsgs: []string{`"VM/1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := scope.ValidatePendingNote(tt.key, tt.note)
			if len(tt.wantMsgs) == 0 {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, scope.ErrInvalidInput)
			for _, m := range tt.wantMsgs {
				assert.Contains(t, err.Error(), m)
			}
			if tt.notInMsg != "" {
				assert.NotContains(t, err.Error(), tt.notInMsg)
			}
			assert.True(t, utf8.ValidString(err.Error()))
		})
	}
}

// pendingScope is what the round trip uses of a machine scope, whatever its type parameter.
type pendingScope interface {
	scope.PendingTracker
	scope.Patcher
	scope.SpecPatcher
	HasChanges() (bool, error)
}

// newPendingScope creates a FooMachine with annotations, typed or unstructured, and a scope of it over c
// whose ownership key is persisted.
func newPendingScope(t *testing.T, c client.Client, ns string, annotations map[string]string, typed bool) pendingScope {
	t.Helper()
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	machine := newMachine(t, env.Client, ns, "m1", "v1beta2", "c1", nil)
	var s pendingScope
	var err error
	if typed {
		obj := fooMachine(ns, "m1")
		obj.Annotations = annotations
		require.NoError(t, env.Client.Create(ctx, obj))
		s, err = scope.NewMachineScope(ctx, c, obj, machine, cluster, scope.WithContractVersion(contract.V1Beta2))
	} else {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(testtypes.GroupVersion.WithKind("FooMachine"))
		u.SetNamespace(ns)
		u.SetName("m1")
		u.SetAnnotations(annotations)
		require.NoError(t, env.Client.Create(ctx, u))
		s, err = scope.NewUnstructuredMachineScope(ctx, c, u, machine, cluster, scope.WithContractVersion(contract.V1Beta2))
	}
	require.NoError(t, err)
	require.NoError(t, s.PatchNow(ctx), "persist the ownership key")
	return s
}

func TestScopePendingNotesRoundTrip(t *testing.T) {
	patchNow := func(ctx context.Context, s pendingScope) error { return s.PatchNow(ctx) }
	patchSpecNow := func(ctx context.Context, s pendingScope) error { return s.PatchSpecNow(ctx) }
	other := map[string]string{"example.com/keep": "me"}
	tests := []struct {
		name   string
		typed  bool
		others map[string]string // annotations of another writer
		patch  func(context.Context, pendingScope) error
	}{
		{name: "typed, only the note, PatchNow", typed: true, patch: patchNow},
		{name: "typed, only the note, PatchSpecNow", typed: true, patch: patchSpecNow},
		{name: "typed, other annotations, PatchSpecNow", typed: true, others: other, patch: patchSpecNow},
		{name: "unstructured, only the note, PatchNow", patch: patchNow},
		{name: "unstructured, other annotations, PatchSpecNow", others: other, patch: patchSpecNow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			ns := env.Namespace(t, "pending")
			cc := scopetest.NewCountingClient(env.Client)
			s := newPendingScope(t, cc, ns, tt.others, tt.typed)
			read := func() *unstructured.Unstructured {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(testtypes.GroupVersion.WithKind("FooMachine"))
				require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m1"}, u))
				return u
			}
			onServer := func() map[string]string { return read().GetAnnotations() }
			with := func(extra map[string]string) map[string]string {
				m := nonNil(maps.Clone(tt.others))
				maps.Copy(m, extra)
				return m
			}
			cc.Reset()

			err := s.SetPending("vm", "op-1\n")
			require.ErrorIs(t, err, scope.ErrInvalidInput)
			assert.Contains(t, err.Error(), "FooMachine "+ns+"/m1", "the error names the object")
			_, ok := s.Pending("vm")
			assert.False(t, ok, "a refused note is not recorded")

			require.NoError(t, s.SetPending("vm", "op-1"))
			note, ok := s.Pending("vm")
			require.True(t, ok)
			assert.Equal(t, "op-1", note)
			assert.Equal(t, with(nil), nonNil(onServer()), "SetPending changes the object in memory only")
			require.NoError(t, tt.patch(ctx, s))
			assert.Equal(t, 1, cc.Writes(), "a note alone is a metadata change: one write")
			assert.Equal(t, with(map[string]string{"pending.capkit.io/vm": "op-1"}), onServer())

			require.NoError(t, s.SetPending("vm", "op-1"))
			changed, err := s.HasChanges()
			require.NoError(t, err)
			assert.False(t, changed, "the same note again is no change")

			// Another writer annotates the object after this scope's read.
			late := read()
			late.SetAnnotations(with(map[string]string{"pending.capkit.io/vm": "op-1", "example.com/late": "x"}))
			require.NoError(t, env.Client.Update(ctx, late))

			require.NoError(t, s.ClearPending("vm"))
			require.NoError(t, s.ClearPending("vm"), "clearing an absent note is not an error")
			_, ok = s.Pending("vm")
			assert.False(t, ok)
			require.NoError(t, tt.patch(ctx, s))
			assert.Equal(t, 2, cc.Writes())
			assert.Equal(t, with(map[string]string{"example.com/late": "x"}), onServer(),
				"the note is gone from the API server, and only the note")

			require.NoError(t, s.ClearPending("disk"))
			changed, err = s.HasChanges()
			require.NoError(t, err)
			assert.False(t, changed, "clearing an absent note changes nothing")
		})
	}
}

// nonNil returns m, or an empty map when m is nil.
func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
