package scope

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
)

// DefaultConflictRetries is how many times a patch is retried after a conflict on conditions or finalizers.
const DefaultConflictRetries = 5

// patcher persists the changes made to one object since the last snapshot: a JSON merge patch of metadata and
// spec, then one of status through the status subresource. It never sends an empty patch.
//
// Lists are replaced whole by a merge patch, so the two lists other controllers also write are guarded: when
// a patch changes metadata.finalizers or the conditions, it carries the resourceVersion it was computed
// from; on a conflict the patcher re-reads the object, re-applies only the finalizers and condition types
// this patcher changed onto the fresh lists, and retries, at most retries times.
type patcher struct {
	c        client.Client
	desc     string // "Kind namespace/name", for errors
	condPath contract.Path
	retries  int
	snapshot map[string]any // built from typed on first use (base), so a no-op reconcile never converts
	// typed is a deep copy of the object when snapshot was taken from it, nil when snapshot was rebuilt
	// from other data. An object that is still reflect.DeepEqual to it has nothing to patch, which saves
	// the conversion to unstructured on the common no-op reconcile.
	typed runtime.Object
	// writeOnce are labels that, once set on the server, are never overwritten: when a patch would add one
	// that the server already has (a stale read), the server's value wins.
	writeOnce []string
}

func newPatcher(c client.Client, obj client.Object, kind string, condPath contract.Path, retries int, writeOnce ...string) (*patcher, error) {
	return &patcher{
		c:         c,
		desc:      fmt.Sprintf("%s %s/%s", kind, obj.GetNamespace(), obj.GetName()),
		condPath:  condPath,
		retries:   retries,
		typed:     obj.DeepCopyObject(),
		writeOnce: writeOnce,
	}, nil
}

// persisted reports whether the last snapshot has the label key with value.
func (p *patcher) persistedLabel(key string) string {
	if o, ok := p.typed.(client.Object); ok && p.snapshot == nil {
		return o.GetLabels()[key]
	}
	labels, _, _ := unstructured.NestedStringMap(p.snapshot, "metadata", "labels")
	return labels[key]
}

// hasChanges reports whether obj differs from the snapshot.
func (p *patcher) hasChanges(obj client.Object) (bool, error) {
	mainPatch, statusPatch, err := p.diff(obj)
	return len(mainPatch) > 0 || len(statusPatch) > 0, err
}

// patch sends what changed in obj since the snapshot and takes a new snapshot. It returns the number of
// API writes it made.
func (p *patcher) patch(ctx context.Context, obj client.Object) (int, error) {
	mainPatch, statusPatch, err := p.diff(obj)
	if err != nil || (mainPatch == nil && statusPatch == nil) {
		return 0, err
	}
	condsChanged := hasPath(statusPatch, p.condPath...)
	writes := 0
	if len(mainPatch) > 0 {
		// The main patch is guarded when it changes a list or a write-once label, and also when the
		// conditions change: a guarded main patch that succeeds proves that the status this patcher
		// started from is still the server's, so the status patch can be guarded by the new version.
		guard := p.guarded(mainPatch, condsChanged)
		oldGen := obj.GetGeneration()
		n, fresh, err := p.send(ctx, obj, mainPatch, false, guard)
		writes += n
		if apierrors.IsNotFound(err) && isBeingDeleted(obj) && len(obj.GetFinalizers()) == 0 {
			return writes, p.takeSnapshot(obj) // the last finalizer is gone and so is the object
		}
		if err != nil {
			return writes, fmt.Errorf("cannot patch %s: %w", p.desc, err)
		}
		if err := p.afterMainPatch(obj, oldGen, fresh, condsChanged); err != nil {
			return writes, fmt.Errorf("cannot patch %s: %w", p.desc, err)
		}
		cur, err := toUnstructured(obj)
		if err != nil {
			return writes, fmt.Errorf("cannot patch %s: %w", p.desc, err)
		}
		_, statusPatch = diffParts(p.snapshot, cur)
	}
	if len(statusPatch) > 0 {
		n, _, err := p.send(ctx, obj, statusPatch, true, condsChanged)
		writes += n
		if apierrors.IsNotFound(err) && isBeingDeleted(obj) {
			err = nil
		}
		if err != nil {
			return writes, fmt.Errorf("cannot patch status of %s: %w", p.desc, err)
		}
	}
	if writes > 0 {
		return writes, p.takeSnapshot(obj)
	}
	return writes, nil
}

func (p *patcher) takeSnapshot(obj client.Object) error {
	snap, err := toUnstructured(obj)
	if err != nil {
		return fmt.Errorf("cannot patch %s: %w", p.desc, err)
	}
	p.snapshot = snap
	p.typed = obj.DeepCopyObject()
	return nil
}

// diff returns the merge patches of metadata+spec and of status since the snapshot; both nil when obj is
// identical to the object the snapshot was taken from.
func (p *patcher) diff(obj client.Object) (mainPatch, statusPatch map[string]any, err error) {
	if p.unchanged(obj) {
		return nil, nil, nil
	}
	if err := p.base(); err != nil {
		return nil, nil, err
	}
	cur, err := toUnstructured(obj)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot patch %s: %w", p.desc, err)
	}
	mainPatch, statusPatch = diffParts(p.snapshot, cur)
	return mainPatch, statusPatch, nil
}

// guarded reports whether a main patch must carry the resourceVersion: when it changes a list other
// controllers also write (finalizers), a write-once label, or when conditions change too (a guarded main
// patch that succeeds proves the status it was computed from is still the server's).
func (p *patcher) guarded(mainPatch map[string]any, condsChanged bool) bool {
	guard := condsChanged || hasPath(mainPatch, "metadata", "finalizers")
	for _, l := range p.writeOnce {
		guard = guard || hasPath(mainPatch, "metadata", "labels", l)
	}
	return guard
}

// base builds the snapshot map from the typed copy when it has not been built yet.
func (p *patcher) base() error {
	if p.snapshot != nil {
		return nil
	}
	obj, ok := p.typed.(client.Object)
	if !ok {
		return fmt.Errorf("cannot patch %s: no snapshot", p.desc)
	}
	snap, err := toUnstructured(obj)
	if err != nil {
		return fmt.Errorf("cannot patch %s: %w", p.desc, err)
	}
	p.snapshot = snap
	return nil
}

// unchanged reports whether obj is identical to the object the snapshot was taken from.
func (p *patcher) unchanged(obj client.Object) bool {
	return p.typed != nil && reflect.DeepEqual(p.typed, runtime.Object(obj))
}

// afterMainPatch prepares the status patch after a successful main patch. When the main patch had to be
// rebased on a fresh read, the status this patcher started from is stale too: its conditions are rebased on
// the fresh ones. When the main patch bumped the generation (a spec change made by this controller), the
// conditions that observed the old generation now observe the new one, so the next reconcile has nothing to
// rewrite.
func (p *patcher) afterMainPatch(obj client.Object, oldGen int64, fresh map[string]any, condsChanged bool) error {
	newGen := obj.GetGeneration()
	if fresh == nil && newGen == oldGen {
		return nil
	}
	cur, err := toUnstructured(obj)
	if err != nil {
		return err
	}
	field := contract.NewField[[]metav1.Condition](p.condPath...)
	conds := conditionsAt(cur, p.condPath)
	if fresh != nil {
		freshFinalizers := stringsAt(fresh, "metadata", "finalizers")
		obj.SetFinalizers(mergeFinalizers(stringsAt(p.snapshot, "metadata", "finalizers"), obj.GetFinalizers(), freshFinalizers))
		if cur, err = toUnstructured(obj); err != nil {
			return err
		}
		freshConds := conditionsAt(fresh, p.condPath)
		conds = mergeConditions(conditionsAt(p.snapshot, p.condPath), conds, freshConds)
		snap := runtime.DeepCopyJSON(p.snapshot)
		if len(freshConds) == 0 {
			field.Delete(&unstructured.Unstructured{Object: snap})
		} else if err := field.Set(&unstructured.Unstructured{Object: snap}, freshConds); err != nil {
			return err
		}
		p.snapshot = snap
		p.typed = nil
	}
	if newGen != oldGen {
		for i := range conds {
			if conds[i].ObservedGeneration == oldGen {
				conds[i].ObservedGeneration = newGen
			}
		}
	}
	if len(conds) == 0 {
		return nil
	}
	if err := field.Set(&unstructured.Unstructured{Object: cur}, conds); err != nil {
		return err
	}
	return fromUnstructured(cur, obj)
}

// send sends one merge patch, retrying on conflicts when guarded. obj's resourceVersion and generation (and,
// after a conflict, its finalizers, write-once labels or conditions) are updated from the API server. It
// returns the object as last re-read after a conflict, or nil.
func (p *patcher) send(ctx context.Context, obj client.Object, patch map[string]any, status, guarded bool) (int, map[string]any, error) {
	writes := 0
	var fresh map[string]any
	for attempt := 0; ; attempt++ {
		body := patch
		if guarded {
			body = withResourceVersion(patch, obj.GetResourceVersion())
		}
		data, err := json.Marshal(body)
		if err != nil {
			return writes, fresh, err
		}
		target, ok := obj.DeepCopyObject().(client.Object)
		if !ok {
			return writes, fresh, fmt.Errorf("cannot copy %T", obj)
		}
		if status {
			err = p.c.Status().Patch(ctx, target, client.RawPatch(types.MergePatchType, data))
		} else {
			err = p.c.Patch(ctx, target, client.RawPatch(types.MergePatchType, data))
		}
		writes++
		if err == nil {
			obj.SetResourceVersion(target.GetResourceVersion())
			obj.SetGeneration(target.GetGeneration())
			if !status {
				// The response is the server's object at the version obj now claims: whatever another
				// writer changed since our read (conditions, finalizers) must be rebased on it, or a later
				// patch guarded by this version would overwrite it.
				if fresh, err = toUnstructured(target); err != nil {
					return writes, nil, err
				}
			}
			return writes, fresh, nil
		}
		if !apierrors.IsConflict(err) || !guarded || attempt >= p.retries {
			return writes, fresh, err
		}
		if patch, fresh, err = p.rebase(ctx, obj, patch, status); err != nil {
			return writes, fresh, err
		}
	}
}

// rebase re-reads the object after a conflict and rewrites the guarded list of patch (finalizers or
// conditions) as the fresh list plus only the changes this patcher made since its snapshot.
func (p *patcher) rebase(ctx context.Context, obj client.Object, patch map[string]any, status bool) (map[string]any, map[string]any, error) {
	fresh, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return nil, nil, fmt.Errorf("cannot copy %T", obj)
	}
	if err := p.c.Get(ctx, client.ObjectKeyFromObject(obj), fresh); err != nil {
		return nil, nil, fmt.Errorf("cannot re-read after a conflict: %w", err)
	}
	freshMap, err := toUnstructured(fresh)
	if err != nil {
		return nil, nil, err
	}
	patch = deepCopyMap(patch)
	if status {
		cur, err := toUnstructured(obj)
		if err != nil {
			return nil, nil, err
		}
		merged := mergeConditions(conditionsAt(p.snapshot, p.condPath), conditionsAt(cur, p.condPath), conditionsAt(freshMap, p.condPath))
		field := contract.NewField[[]metav1.Condition](p.condPath...)
		if err := field.Set(&unstructured.Unstructured{Object: patch}, merged); err != nil {
			return nil, nil, err
		}
		if err := field.Set(&unstructured.Unstructured{Object: cur}, merged); err != nil {
			return nil, nil, err
		}
		if err := fromUnstructured(cur, obj); err != nil {
			return nil, nil, err
		}
	} else {
		if hasPath(patch, "metadata", "finalizers") {
			merged := mergeFinalizers(stringsAt(p.snapshot, "metadata", "finalizers"), obj.GetFinalizers(), fresh.GetFinalizers())
			if err := unstructured.SetNestedStringSlice(patch, merged, "metadata", "finalizers"); err != nil {
				return nil, nil, err
			}
			obj.SetFinalizers(merged)
		}
		for _, l := range p.writeOnce {
			if v, ok := fresh.GetLabels()[l]; ok && hasPath(patch, "metadata", "labels", l) {
				unstructured.RemoveNestedField(patch, "metadata", "labels", l)
				labels := obj.GetLabels()
				labels[l] = v
				obj.SetLabels(labels)
			}
		}
	}
	obj.SetResourceVersion(fresh.GetResourceVersion())
	return patch, freshMap, nil
}

// diffParts returns the merge patch of everything but status, and the merge patch of status (wrapped in
// {"status": ...}). Server-owned metadata is ignored.
func diffParts(before, after map[string]any) (mainPatch, statusPatch map[string]any) {
	b, a := withoutServerFields(before), withoutServerFields(after)
	bs, as := b["status"], a["status"]
	delete(b, "status")
	delete(a, "status")
	mainPatch = mergeDiff(b, a)
	if !reflect.DeepEqual(normalize(bs), normalize(as)) {
		statusPatch = map[string]any{"status": diffValue(bs, as)}
	}
	return mainPatch, statusPatch
}

func withoutServerFields(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		md2 := make(map[string]any, len(md))
		for k, v := range md {
			switch k {
			case "resourceVersion", "managedFields", "generation", "creationTimestamp", "uid", "selfLink":
			default:
				md2[k] = v
			}
		}
		out["metadata"] = md2
	}
	return out
}

// mergeDiff returns the RFC 7386 JSON merge patch that turns before into after; empty when they are equal.
func mergeDiff(before, after map[string]any) map[string]any {
	patch := map[string]any{}
	for k, av := range after {
		bv, found := before[k]
		if found && reflect.DeepEqual(normalize(bv), normalize(av)) {
			continue
		}
		if !found {
			patch[k] = av
			continue
		}
		patch[k] = diffValue(bv, av)
	}
	for k := range before {
		if _, found := after[k]; !found {
			patch[k] = nil
		}
	}
	return patch
}

func diffValue(before, after any) any {
	bm, bok := before.(map[string]any)
	am, aok := after.(map[string]any)
	if bok && aok {
		return mergeDiff(bm, am)
	}
	return after
}

// normalize makes numbers comparable whatever their Go type (int64 from the converter, float64 from JSON).
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	case int64:
		return float64(t)
	case int32:
		return float64(t)
	case int:
		return float64(t)
	}
	return v
}

func withResourceVersion(patch map[string]any, rv string) map[string]any {
	out := deepCopyMap(patch)
	md, _ := out["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	md["resourceVersion"] = rv
	out["metadata"] = md
	return out
}

func deepCopyMap(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	out := map[string]any{}
	_ = json.Unmarshal(b, &out)
	return out
}

func hasPath(m map[string]any, path ...string) bool {
	_, found, _ := unstructured.NestedFieldNoCopy(m, path...)
	return found
}

func isBeingDeleted(obj client.Object) bool { return !obj.GetDeletionTimestamp().IsZero() }

func stringsAt(m map[string]any, path ...string) []string {
	s, _, _ := unstructured.NestedStringSlice(m, path...)
	return s
}

func conditionsAt(m map[string]any, path contract.Path) []metav1.Condition {
	c, _ := contract.NewField[[]metav1.Condition](path...).Get(&unstructured.Unstructured{Object: m})
	return c
}

// mergeFinalizers returns fresh plus the finalizers added in cur since snap, minus those removed.
func mergeFinalizers(snap, cur, fresh []string) []string {
	out := slices.Clone(fresh)
	for _, f := range cur {
		if !slices.Contains(snap, f) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, f := range snap {
		if !slices.Contains(cur, f) {
			out = slices.DeleteFunc(out, func(s string) bool { return s == f })
		}
	}
	return out
}

// mergeConditions returns fresh with the condition types changed in cur since snap re-applied: changed or
// added types take cur's value, removed types are removed; other types keep fresh's value.
func mergeConditions(snap, cur, fresh []metav1.Condition) []metav1.Condition {
	find := func(list []metav1.Condition, t string) *metav1.Condition {
		for i := range list {
			if list[i].Type == t {
				return &list[i]
			}
		}
		return nil
	}
	out := slices.Clone(fresh)
	for _, c := range cur {
		if old := find(snap, c.Type); old != nil && reflect.DeepEqual(*old, c) {
			continue
		}
		if i := slices.IndexFunc(out, func(x metav1.Condition) bool { return x.Type == c.Type }); i >= 0 {
			out[i] = c
		} else {
			out = append(out, c)
		}
	}
	for _, s := range snap {
		if find(cur, s.Type) == nil {
			out = slices.DeleteFunc(out, func(x metav1.Condition) bool { return x.Type == s.Type })
		}
	}
	conditions.Sort(out)
	return out
}

// patchSpec sends what changed in obj's metadata and spec since the snapshot, and leaves the status changes
// for the next patch: the new snapshot has obj's metadata and spec and the old snapshot's status. It is
// guarded like patch (finalizers, write-once labels, and pending condition changes, so that the status patch
// that follows is still computed against the server's status). It returns the number of API writes made.
func (p *patcher) patchSpec(ctx context.Context, obj client.Object) (int, error) {
	mainPatch, statusPatch, err := p.diff(obj)
	if err != nil || (mainPatch == nil && statusPatch == nil) {
		return 0, err
	}
	if len(mainPatch) == 0 {
		return 0, nil
	}
	condsChanged := hasPath(statusPatch, p.condPath...)
	guard := p.guarded(mainPatch, condsChanged)
	oldGen := obj.GetGeneration()
	n, fresh, err := p.send(ctx, obj, mainPatch, false, guard)
	if err != nil {
		return n, fmt.Errorf("cannot patch %s: %w", p.desc, err)
	}
	if err := p.afterMainPatch(obj, oldGen, fresh, condsChanged); err != nil {
		return n, fmt.Errorf("cannot patch %s: %w", p.desc, err)
	}
	snap, err := toUnstructured(obj)
	if err != nil {
		return n, fmt.Errorf("cannot patch %s: %w", p.desc, err)
	}
	if status, ok := p.snapshot["status"]; ok {
		snap["status"] = runtime.DeepCopyJSONValue(status)
	} else {
		delete(snap, "status")
	}
	p.snapshot = snap
	p.typed = nil // the snapshot mixes obj's spec with the old status
	return n, nil
}
