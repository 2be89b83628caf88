package scopetest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

func TestTrackerModelsCrashAndMove(t *testing.T) {
	ctx := t.Context()
	tr := scopetest.NewTracker("owner-1")
	key, err := tr.OwnershipKey()
	require.NoError(t, err)
	assert.Equal(t, "owner-1", key)

	require.NoError(t, tr.SetResourceID("network", "net-1"))
	require.NoError(t, tr.PatchNow(ctx))
	require.NoError(t, tr.PatchNow(ctx), "nothing changed: no write")
	assert.Equal(t, 1, tr.Writes())

	require.NoError(t, tr.SetResourceID("subnet", "subnet-1"))
	crash := errors.New("killed")
	tr.FailNextPatch(crash)
	require.ErrorIs(t, tr.PatchNow(ctx), crash)
	assert.Equal(t, map[string]string{"network": "net-1", "subnet": "subnet-1"}, tr.IDs())
	assert.Equal(t, map[string]string{"network": "net-1"}, tr.Persisted())

	restarted := tr.Restart()
	_, ok := restarted.ResourceID("subnet")
	assert.False(t, ok, "the ID that was not persisted is lost")
	id, ok := restarted.ResourceID("network")
	assert.True(t, ok)
	assert.Equal(t, "net-1", id)

	moved := tr.Moved()
	assert.Empty(t, moved.IDs(), "status is not moved")
	key, _ = moved.OwnershipKey()
	assert.Equal(t, "owner-1", key, "the ownership key label is")

	require.NoError(t, tr.DeleteResourceID("network"))
	_, ok = tr.ResourceID("network")
	assert.False(t, ok)
	require.ErrorIs(t, tr.SetResourceID("Not A Key", "x"), scope.ErrInvalidInput)
	require.ErrorIs(t, tr.SetResourceID("vm", ""), scope.ErrInvalidInput)

	_, err = scopetest.NewTracker("").OwnershipKey()
	require.ErrorIs(t, err, scope.ErrOwnershipKeyNotPersisted)
}

func TestTrackerKeepsNotesLikeAnnotations(t *testing.T) {
	ctx := t.Context()
	tr := scopetest.NewTracker("owner-1")
	require.NoError(t, tr.SetPending("vm", "op-1"))
	require.NoError(t, tr.SetResourceID("network", "net-1"))
	require.NoError(t, tr.PatchNow(ctx))
	require.NoError(t, tr.PatchNow(ctx), "nothing changed: no write")
	assert.Equal(t, 1, tr.Writes())

	require.NoError(t, tr.SetPending("disk", "op-2"))
	crash := errors.New("killed")
	tr.FailNextPatch(crash)
	require.ErrorIs(t, tr.PatchNow(ctx), crash)
	assert.Equal(t, map[string]string{"vm": "op-1", "disk": "op-2"}, tr.Notes())
	assert.Equal(t, map[string]string{"vm": "op-1"}, tr.PersistedNotes(), "a failed patch persists no note")

	tests := []struct {
		name      string
		next      *scopetest.Tracker
		wantNotes map[string]string
		wantIDs   map[string]string
	}{
		{"Restart keeps what was persisted", tr.Restart(), map[string]string{"vm": "op-1"}, map[string]string{"network": "net-1"}},
		{"Moved keeps the annotations, not status", tr.Moved(), map[string]string{"vm": "op-1"}, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wantNotes, tt.next.Notes())
			assert.Equal(t, tt.wantNotes, tt.next.PersistedNotes())
			assert.Equal(t, tt.wantIDs, tt.next.IDs())
			note, ok := tt.next.Pending("vm")
			assert.True(t, ok)
			assert.Equal(t, "op-1", note)
			_, ok = tt.next.Pending("disk")
			assert.False(t, ok, "the note that was not persisted is lost")
			require.NoError(t, tt.next.PatchNow(ctx))
			assert.Zero(t, tt.next.Writes(), "what it starts with is persisted already")
		})
	}

	// A cleared note alone is a change to persist.
	require.NoError(t, tr.ClearPending("vm"))
	require.NoError(t, tr.ClearPending("absent"))
	_, ok := tr.Pending("vm")
	assert.False(t, ok)
	require.NoError(t, tr.PatchNow(ctx))
	assert.Equal(t, 2, tr.Writes())
	assert.Equal(t, map[string]string{"disk": "op-2"}, tr.PersistedNotes())

	// The accessors return copies.
	tr.Notes()["x"] = "y"
	tr.PersistedNotes()["x"] = "y"
	_, ok = tr.Pending("x")
	assert.False(t, ok)
	assert.NotContains(t, tr.PersistedNotes(), "x")
}

func TestTrackerValidatesNotesLikeAScope(t *testing.T) {
	tests := []struct {
		name, key, note string
	}{
		{"bad key", "Not A Key", "op-1"},
		{"empty note", "vm", ""},
		{"note too long", "vm", strings.Repeat("x", scope.MaxPendingNote+1)},
		{"control character", "vm", "op\n1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := scopetest.NewTracker("owner-1")
			err := tr.SetPending(tt.key, tt.note)
			require.ErrorIs(t, err, scope.ErrInvalidInput)
			assert.Equal(t, scope.ValidatePendingNote(tt.key, tt.note).Error(), errors.Unwrap(err).Error(), "the scope's validation")
			assert.Empty(t, tr.Notes())
		})
	}
}
