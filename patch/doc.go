// Package patch persists the changes a controller made to one Kubernetes object since it read it, with as
// few API requests as the change needs, and without losing what other controllers wrote meanwhile.
//
// A Helper is created right after the object is read (NewHelper takes a snapshot) and used at the end of a
// reconcile, or at a checkpoint in the middle of one:
//
//   - Patch sends one JSON merge patch (RFC 7386) of metadata and spec, then one of status through the
//     status subresource; nothing at all when nothing changed. The merge patches are built by
//     github.com/evanphx/json-patch/v5 from the JSON of the snapshot and of the object, part by part, so a
//     part that did not change costs a byte comparison.
//   - PatchSpec sends metadata and spec only and keeps the status changes for the next Patch: a one-write
//     checkpoint when what must survive a crash is in spec (a machine's spec.providerID).
//   - HasChanges reports whether anything would be sent.
//
// Most reconciles change nothing. Before any JSON, Patch compares the object with its snapshot field by
// field, by a plan built once per Go type (with reflect.DeepEqual's answer on every kind, about 4× faster),
// so a no-op costs a walk of the object and no allocation for the comparison.
//
// # Lists other controllers write
//
// A merge patch replaces a list whole, so the two lists several controllers write are guarded:
// metadata.finalizers and the conditions (status.conditions of a type that implements conditions.Setter, or
// the path given with WithConditionsPath). A patch that changes one of them, or a label named with
// WithWriteOnceLabels, carries the resourceVersion it was computed from (optimistic locking); every other
// patch does not, so it cannot conflict. On a conflict
// the Helper re-reads the object, re-applies only the finalizers and the condition types it changed onto the
// fresh lists, and tries again, at most WithConflictRetries times. After every metadata-and-spec patch the
// server's answer becomes the base of the guarded lists, so a later status patch never drops a condition
// another controller wrote in between. Labels named with WithWriteOnceLabels are never overwritten once the
// server has them.
//
// # Errors
//
// Errors name the object ("cannot patch FooMachine ns/name: ..."). A patch that finds the object gone after
// its last finalizer was removed is a success.
package patch
