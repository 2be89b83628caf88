package scopetest

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/capkit/capkit/scope"
)

// Tracker is an in-memory scope.ResourceTracker and scope.PendingTracker that keeps apart what a real scope
// holds in memory and what it has persisted with PatchNow, so that a test can model a crash (Restart) or
// clusterctl move (Moved) between two reconciles. It is safe for concurrent use.
type Tracker struct {
	mu             sync.Mutex
	key            string
	ids            map[string]string
	persisted      map[string]string
	notes          map[string]string
	persistedNotes map[string]string
	writes         int
	fail           []error
}

var (
	_ scope.ResourceTracker = (*Tracker)(nil)
	_ scope.PendingTracker  = (*Tracker)(nil)
)

// NewTracker returns a Tracker with no resource IDs or pending notes and the persisted ownership key
// ownershipKey; with an empty key, OwnershipKey fails with scope.ErrOwnershipKeyNotPersisted, as a scope
// does before its first patch.
func NewTracker(ownershipKey string) *Tracker {
	return &Tracker{key: ownershipKey, ids: map[string]string{}, persisted: map[string]string{},
		notes: map[string]string{}, persistedNotes: map[string]string{}}
}

// OwnershipKey returns the ownership key, or an error wrapping scope.ErrOwnershipKeyNotPersisted.
func (t *Tracker) OwnershipKey() (string, error) {
	if t.key == "" {
		return "", fmt.Errorf("cannot use the ownership key of the tracker: %w", scope.ErrOwnershipKeyNotPersisted)
	}
	return t.key, nil
}

// ResourceID returns the ID held in memory for key.
func (t *Tracker) ResourceID(key string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.ids[key]
	return id, ok && id != ""
}

// SetResourceID records id for key in memory; like a scope, it refuses keys that are not DNS labels and
// empty IDs.
func (t *Tracker) SetResourceID(key, id string) error {
	if err := scope.ValidateResourceKey(key); err != nil {
		return fmt.Errorf("cannot record a resource ID: %w", err)
	}
	if id == "" {
		return fmt.Errorf("cannot record the resource ID of %q: id must not be empty: %w", key, scope.ErrInvalidInput)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ids[key] = id
	return nil
}

// DeleteResourceID forgets key in memory.
func (t *Tracker) DeleteResourceID(key string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.ids, key)
	return nil
}

// Pending returns the note held in memory for key.
func (t *Tracker) Pending(key string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	note, ok := t.notes[key]
	return note, ok
}

// SetPending records note for key in memory, with a scope's validation (scope.ValidatePendingNote).
func (t *Tracker) SetPending(key, note string) error {
	if err := scope.ValidatePendingNote(key, note); err != nil {
		return fmt.Errorf("cannot record a pending note: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes[key] = note
	return nil
}

// ClearPending forgets the note of key in memory.
func (t *Tracker) ClearPending(key string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.notes, key)
	return nil
}

// PatchNow persists the IDs and notes held in memory. It fails with the next error queued by FailNextPatch,
// persisting nothing. Like a scope it writes nothing when nothing changed; Writes counts the patches that did.
func (t *Tracker) PatchNow(context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.fail) > 0 {
		err := t.fail[0]
		t.fail = t.fail[1:]
		return err
	}
	if maps.Equal(t.ids, t.persisted) && maps.Equal(t.notes, t.persistedNotes) {
		return nil
	}
	t.persisted, t.persistedNotes = maps.Clone(t.ids), maps.Clone(t.notes)
	t.writes++
	return nil
}

// FailNextPatch makes the next PatchNow fail with err and persist nothing: the process "dies" between a
// cloud create and the write of its ID. Several calls queue several failures.
func (t *Tracker) FailNextPatch(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fail = append(t.fail, err)
}

// Writes returns how many PatchNow calls persisted a change.
func (t *Tracker) Writes() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.writes
}

// IDs returns a copy of the IDs held in memory.
func (t *Tracker) IDs() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.ids)
}

// Persisted returns a copy of the IDs persisted by the last successful PatchNow.
func (t *Tracker) Persisted() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.persisted)
}

// Notes returns a copy of the pending notes held in memory.
func (t *Tracker) Notes() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.notes)
}

// PersistedNotes returns a copy of the pending notes persisted by the last successful PatchNow.
func (t *Tracker) PersistedNotes() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.persistedNotes)
}

// Restart returns the tracker the next reconcile sees after the controller died: the same ownership key
// and only the persisted IDs and notes.
func (t *Tracker) Restart() *Tracker {
	n := t.Moved()
	n.ids, n.persisted = t.Persisted(), t.Persisted()
	return n
}

// Moved returns the tracker the next reconcile sees after clusterctl move: the ownership key and the
// persisted notes survive (they are a label and annotations), the IDs do not (status is not moved).
func (t *Tracker) Moved() *Tracker {
	n := NewTracker(t.key)
	n.notes, n.persistedNotes = t.PersistedNotes(), t.PersistedNotes()
	return n
}
