package conversion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StashAnnotation is the annotation in which Stash keeps, as JSON, the fields of an object that the API version
// it is converted to cannot hold, until Restore puts them back on the way to the version that can.
const StashAnnotation = "conversion.capkit.io/stash"

// MaxStashSize is the largest stash, in bytes of JSON, that Stash writes and Restore reads. All the annotations
// of an object share 256 KiB; the largest stash the helpers write for an object the contract's schemas allow
// (100 failure domains with 256-byte names, out of order and with controlPlane unset) is about 52 KiB, which
// leaves room for the provider's own fields and the object's other annotations.
const MaxStashSize = 128 * 1024

// ErrBadStash is wrapped by the error of Restore when the annotation is too large or not the JSON of the value;
// the annotation is removed all the same, so a provider that prefers to convert without it checks
// errors.Is(err, ErrBadStash) and goes on.
var ErrBadStash = errors.New("bad stash annotation")

// Stash writes v as JSON into obj's StashAnnotation, replacing any. A v that encodes to null or {} (nothing
// lost: a struct whose fields are all empty and omitempty) removes the annotation instead, so an object that
// lost nothing carries none. It fails, naming the object and the size, when the JSON is larger than
// MaxStashSize.
func Stash(obj metav1.Object, v any) error {
	if obj == nil {
		return errors.New("cannot stash: nil object")
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot stash fields of %q: %w", objectName(obj), err)
	}
	if bytes.Equal(data, []byte("null")) || bytes.Equal(data, []byte("{}")) {
		removeStash(obj)
		return nil
	}
	if len(data) > MaxStashSize {
		return fmt.Errorf("cannot stash fields of %q: %d bytes of JSON, more than %d", objectName(obj), len(data), MaxStashSize)
	}
	a := maps.Clone(obj.GetAnnotations()) // the map may be shared with the object converted from
	if a == nil {
		a = map[string]string{}
	}
	a[StashAnnotation] = string(data)
	obj.SetAnnotations(a)
	return nil
}

// Restore decodes obj's StashAnnotation into v (a pointer) and removes the annotation from obj. It reports
// false, and leaves v as it is, when obj has no such annotation. An annotation larger than MaxStashSize or not
// the JSON of v is removed too, and the error, which names the annotation and the object, wraps ErrBadStash.
// Unknown JSON fields are ignored, so a stash written by a newer release of the provider is read.
func Restore(obj metav1.Object, v any) (bool, error) {
	if obj == nil {
		return false, errors.New("cannot restore: nil object")
	}
	data, ok := obj.GetAnnotations()[StashAnnotation]
	if !ok {
		return false, nil
	}
	removeStash(obj)
	if len(data) > MaxStashSize {
		return false, fmt.Errorf("cannot restore annotation %q of %q: %d bytes, more than %d: %w",
			StashAnnotation, objectName(obj), len(data), MaxStashSize, ErrBadStash)
	}
	if err := json.Unmarshal([]byte(data), v); err != nil {
		return false, fmt.Errorf("cannot restore annotation %q of %q: %w: %w", StashAnnotation, objectName(obj), ErrBadStash, err)
	}
	return true, nil
}

// removeStash deletes the annotation, and the annotations map when it is left empty. It writes a copy of the
// map, which may be shared with the object converted from.
func removeStash(obj metav1.Object) {
	a := obj.GetAnnotations()
	if _, ok := a[StashAnnotation]; !ok {
		return
	}
	a = maps.Clone(a)
	delete(a, StashAnnotation)
	if len(a) == 0 {
		a = nil
	}
	obj.SetAnnotations(a)
}

// objectName is namespace/name, or name for a cluster-scoped object.
func objectName(obj metav1.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}
