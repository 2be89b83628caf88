package conversion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StashAnnotation is the annotation in which Stash keeps, as JSON, the fields of an object that the API version
// it is converted to cannot hold, until Restore puts them back on the way to the version that can.
const StashAnnotation = "conversion.capkit.io/stash"

// StatusStashAnnotation is the annotation in which StashStatus keeps, as JSON, the status fields of an object
// that the API version it is converted to cannot hold. It is apart from StashAnnotation because a write to the
// main resource must not change it: KeepStatus, called by the hub's defaulting webhook, puts back the stored
// one.
const StatusStashAnnotation = "conversion.capkit.io/status-stash"

// BadStashAnnotation is the annotation in which Restore reports, on the converted object, a StashAnnotation it
// could not read (too large, or not the JSON of the value): its value names the annotation, the object and the
// reason. The conversion goes on without the stash, so one object's bad stash never fails a LIST.
const BadStashAnnotation = "conversion.capkit.io/bad-stash"

// MaxStashSize is the largest stash, in bytes of JSON, that Stash writes and Restore reads. All the annotations
// of an object share 256 KiB; the largest stash the helpers write for an object the contract's schemas allow
// (100 failure domains with 256-byte names, out of order and with controlPlane unset) is about 52 KiB, which
// leaves room for the provider's own fields and the object's other annotations.
const MaxStashSize = 128 * 1024

// ErrBadStash was wrapped by the error of Restore for a stash too large or not the JSON of the value.
//
// Deprecated: Restore and RestoreStatus no longer fail on a bad stash (a conversion that fails fails the whole
// LIST it is part of); they report it in BadStashAnnotation or BadStatusStashAnnotation and go on.
var ErrBadStash = errors.New("bad stash annotation")

// BadStatusStashAnnotation is BadStashAnnotation for StatusStashAnnotation: RestoreStatus reports in it a
// status stash it could not read.
const BadStatusStashAnnotation = "conversion.capkit.io/bad-status-stash"

// maxBadStashReport bounds the value of BadStashAnnotation and BadStatusStashAnnotation, in bytes.
const maxBadStashReport = 256

// Stash writes v as JSON into obj's StashAnnotation, replacing any: the spec and metadata fields that the
// target version cannot hold (status fields go to StashStatus). A v that encodes to null or {} (nothing lost: a
// struct whose fields are all empty and omitempty) removes the annotation instead, so an object that lost
// nothing carries none. It fails, naming the object and the size, when the JSON is larger than MaxStashSize.
func Stash(obj metav1.Object, v any) error { return stash(obj, StashAnnotation, v) }

// StashStatus is Stash for the status fields that the target version cannot hold, in StatusStashAnnotation.
// A write to the main resource can set any annotation, so a conversion that restores status from this one
// needs KeepStatus in the hub's defaulting webhook, which puts back the stored one on such a write.
func StashStatus(obj metav1.Object, v any) error { return stash(obj, StatusStashAnnotation, v) }

// Restore decodes obj's StashAnnotation into v (a pointer) and removes the annotation from obj. It reports
// false, and leaves v as it is, when obj has no such annotation. An annotation larger than MaxStashSize or not
// the JSON of v (a non-nil pointer) is removed too, v is left as it is, and obj gets BadStashAnnotation, which names the annotation
// and the reason: a bad stash costs only what it held, on its own object, and is no error. Any
// BadStashAnnotation obj came with is removed first. Unknown JSON fields are ignored, so a stash written by a
// newer release of the provider is read. It fails only for a nil obj.
func Restore(obj metav1.Object, v any) (bool, error) {
	return restore(obj, StashAnnotation, BadStashAnnotation, v)
}

// RestoreStatus is Restore for StatusStashAnnotation; it reports a bad one in BadStatusStashAnnotation.
func RestoreStatus(obj metav1.Object, v any) (bool, error) {
	return restore(obj, StatusStashAnnotation, BadStatusStashAnnotation, v)
}

func stash(obj metav1.Object, key string, v any) error {
	if obj == nil {
		return errors.New("cannot stash: nil object")
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot stash fields of %q: %w", objectName(obj), err)
	}
	if bytes.Equal(data, []byte("null")) || bytes.Equal(data, []byte("{}")) {
		removeAnnotation(obj, key)
		return nil
	}
	if len(data) > MaxStashSize {
		return fmt.Errorf("cannot stash fields of %q: %d bytes of JSON, more than %d", objectName(obj), len(data), MaxStashSize)
	}
	setAnnotation(obj, key, string(data))
	return nil
}

func restore(obj metav1.Object, key, badKey string, v any) (bool, error) {
	if obj == nil {
		return false, errors.New("cannot restore: nil object")
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false, fmt.Errorf("cannot restore annotation %q of %q: %T is not a non-nil pointer", key, objectName(obj), v)
	}
	removeAnnotation(obj, badKey)
	data, ok := obj.GetAnnotations()[key]
	if !ok {
		return false, nil
	}
	removeAnnotation(obj, key)
	var reason string
	fresh := reflect.New(rv.Type().Elem()) // v changes only for a stash read whole
	if len(data) > MaxStashSize {
		reason = fmt.Sprintf("%d bytes, more than %d", len(data), MaxStashSize)
	} else if err := json.Unmarshal([]byte(data), fresh.Interface()); err != nil {
		reason = err.Error()
	}
	if reason == "" {
		rv.Elem().Set(fresh.Elem())
		return true, nil
	}
	report := fmt.Sprintf("cannot restore annotation %q of %q: %s", key, objectName(obj), reason)
	if len(report) > maxBadStashReport {
		report = report[:maxBadStashReport]
	}
	setAnnotation(obj, badKey, report)
	return false, nil
}

// setAnnotation sets one annotation on a copy of the map, which may be shared with the object converted from.
func setAnnotation(obj metav1.Object, key, value string) {
	a := maps.Clone(obj.GetAnnotations())
	if a == nil {
		a = map[string]string{}
	}
	a[key] = value
	obj.SetAnnotations(a)
}

// removeAnnotation deletes the annotation, and the annotations map when it is left empty. It writes a copy of
// the map, which may be shared with the object converted from.
func removeAnnotation(obj metav1.Object, key string) {
	a := obj.GetAnnotations()
	if _, ok := a[key]; !ok {
		return
	}
	a = maps.Clone(a)
	delete(a, key)
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
