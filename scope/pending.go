package scope

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PendingAnnotationPrefix is the prefix of the annotations that hold the pending notes of the scopes
// (PendingTracker): the note of resource key is the annotation PendingAnnotationPrefix + key. Annotations
// travel with the object through clusterctl move.
const PendingAnnotationPrefix = "pending.capkit.io/"

// MaxPendingNote is the largest pending note, in bytes.
const MaxPendingNote = 256

// maxNoteInError is how much of a refused note an error quotes, in bytes.
const maxNoteInError = 64

// ValidatePendingNote checks that note can be recorded as the pending note of key: key is a resource key
// (ValidateResourceKey), and note is valid UTF-8 without control characters, not empty, and at most
// MaxPendingNote bytes. Errors wrap ErrInvalidInput and quote at most the first 64 bytes of the note.
func ValidatePendingNote(key, note string) error {
	if err := ValidateResourceKey(key); err != nil {
		return err
	}
	var reason string
	switch {
	case note == "":
		reason = "it is empty"
	case len(note) > MaxPendingNote:
		reason = fmt.Sprintf("it is longer than %d bytes", MaxPendingNote)
	case !utf8.ValidString(note):
		reason = "it is not valid UTF-8"
	case strings.ContainsFunc(note, unicode.IsControl):
		reason = "it has control characters"
	default:
		return nil
	}
	return fmt.Errorf("invalid pending note of %q (%d bytes, %q): %s: %w", key, len(note), shorten(note), reason, ErrInvalidInput)
}

// shorten cuts s to at most maxNoteInError bytes, at a character boundary, marking the cut with "…".
func shorten(s string) string {
	if len(s) <= maxNoteInError {
		return s
	}
	cut := maxNoteInError
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Pending returns the note recorded for key (the annotation PendingAnnotationPrefix + key), and whether
// there is one.
func (s *objectScope[T]) Pending(key string) (string, bool) {
	note, ok := s.obj.GetAnnotations()[PendingAnnotationPrefix+key]
	return note, ok && note != ""
}

// SetPending records note for key in the annotation PendingAnnotationPrefix + key (see ValidatePendingNote
// for what a note may hold). It changes the object in memory; PatchNow or PatchSpecNow persist it.
func (s *objectScope[T]) SetPending(key, note string) error {
	if err := ValidatePendingNote(key, note); err != nil {
		return fmt.Errorf("cannot record a pending note in %s: %w", s.desc, err)
	}
	a := s.obj.GetAnnotations()
	if a[PendingAnnotationPrefix+key] == note {
		return nil
	}
	if a == nil {
		a = map[string]string{}
	}
	a[PendingAnnotationPrefix+key] = note
	s.obj.SetAnnotations(a)
	return nil
}

// ClearPending removes the note of key from the object in memory; PatchNow or PatchSpecNow persist the
// removal. Clearing an absent note is not an error.
func (s *objectScope[T]) ClearPending(key string) error {
	a := s.obj.GetAnnotations()
	if _, ok := a[PendingAnnotationPrefix+key]; !ok {
		return nil
	}
	delete(a, PendingAnnotationPrefix+key)
	s.obj.SetAnnotations(a)
	return nil
}
