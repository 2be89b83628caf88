// Package patch persists the changes a controller made to one Kubernetes object since it read it. It sends as few API
// requests as the change needs, and loses nothing other controllers wrote meanwhile. It keeps the semantics of Cluster
// API's sigs.k8s.io/cluster-api/util/patch where both apply (see the table below).
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
// A Helper is for one object: given another (another kind, namespace or name, or another UID when both have
// one) HasChanges, Patch and PatchSpec send nothing and return an error wrapping ErrWrongObject.
//
// Most reconciles change nothing. Before any JSON, Patch compares the object with its snapshot field by
// field, by a plan built once per Go type (with reflect.DeepEqual's answer on every kind, about 4× faster),
// so a no-op costs a walk of the object and no allocation for the comparison.
//
// "Nothing changed" means the object reads back the same: a change that a round trip through JSON and the
// object's Go type forgets is no change. An empty list where there was none, inside a struct marked omitzero
// (Cluster API v1beta2's style), makes the struct marshal as {} where it was omitted; sent, it would add an
// empty object the API server rejects when it has required fields. A patch that sets an empty object or
// removes a field is therefore computed again from the JSON of the object and of the snapshot after that
// round trip; every other patch costs no round trip.
//
// # Lists other controllers write
//
// A merge patch replaces a list whole, so the two lists several controllers write are guarded:
// metadata.finalizers and the conditions (status.conditions of a type that implements conditions.Setter, or
// the path given with WithConditionsPath). Only a patch that changes one of them carries the resourceVersion
// it was computed from (optimistic locking): the metadata-and-spec patch when it changes a finalizer or a
// label named with WithWriteOnceLabels, the status patch when it changes a condition. Every other patch
// does not, so it cannot conflict. On a conflict the Helper re-reads the object, re-applies only the
// finalizers and the condition types it changed onto the fresh lists, and tries again, at most
// WithConflictRetries times. After every metadata-and-spec patch the server's answer becomes the base of
// the guarded lists, so a later status patch never drops a condition another controller wrote in between.
// Labels named with WithWriteOnceLabels are never overwritten once the server has them.
//
// # Conditions
//
// Condition types are merged one by one, by Cluster API's rules. A type the Helper changed is written when
// the server still holds the value it read, and left as it is when the server already holds the same state
// (LastTransitionTime aside). When another writer changed, added or removed the type since the read in
// another way, that is a conflict: the server's value is kept, everything else is still sent, and Patch
// returns an error wrapping ErrConditionConflict, so that the next reconcile decides on what the other
// writer wrote. A controller names the types it writes alone with WithOwnedConditions (or
// Helper.OwnConditions): for those its value always wins. WithForceOverwriteConditions makes every type win.
// capkit's reconcilers own Ready, Paused, Deleting, IdentityReady and the condition of each step. A conflict
// found by PatchSpec is reported by the next Patch.
//
// When a metadata-and-spec patch of this Helper moves the generation by exactly one (no other writer
// changed the spec since the read), the conditions the caller changed or owns that observed the old
// generation observe the new one, in the object and in the status patch: the spec they describe is the one
// just written, and a step gated on its condition's observedGeneration does not run again for the
// controller's own spec change. Cluster API's helper leaves observedGeneration alone (its controllers write
// the conditions again in the next reconcile). No other condition is touched: a generation that includes
// another writer's spec change, or another writer's condition, is never claimed.
//
// # status.observedGeneration
//
// There is no counterpart of Cluster API's WithStatusObservedGeneration: a typed object sets its own field,
// which is one line and needs no JSON surgery: m.Status.ObservedGeneration = m.Generation, the generation the
// reconcile read, as Cluster API does. Set it right before Patch, and Patch sends it with the rest of status
// when anything changed.
//
// To record the generation of a spec change made in the same reconcile, call PatchSpec first (it sets the
// object's new generation), then set the field and call Patch.
//
// # Cluster API's options
//
//	Cluster API util/patch                  capkit patch
//	NewHelper(obj, client)                  NewHelper(client, obj, options...): options are given once
//	Helper.Patch(ctx, obj, options...)      Helper.Patch(ctx, obj); Helper.PatchSpec for a spec checkpoint
//	WithOwnedConditions{Conditions}         WithOwnedConditions(types...), Helper.OwnConditions(types...)
//	WithForceOverwriteConditions{}          WithForceOverwriteConditions()
//	WithStatusObservedGeneration{}          none: set status.observedGeneration before Patch (above)
//	Metav1ConditionsFieldPath               conditions.Setter, or WithConditionsPath for unstructured objects
//	WithOwnedV1Beta1Conditions{},           none: v1beta1 clusterv1.Conditions are not merged; capkit
//	Clusterv1ConditionsFieldPath              writes metav1.Condition only (a v1beta1-contract object's
//	                                          are at WithConditionsPath("status", "v1beta2", "conditions"))
//	(finalizers replaced whole)             finalizers merged, guarded by the resourceVersion
//	none                                    WithWriteOnceLabels, WithConflictRetries, WithKind
//
// # Errors
//
// Errors name the object ("cannot patch FooMachine ns/name: ..."). A patch that finds the object gone after
// its last finalizer was removed is a success.
package patch
