package patch

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
)

// condAccess reads and writes the conditions of objects of one type.
type condAccess interface {
	get(obj client.Object) ([]metav1.Condition, error)
	set(obj client.Object, c []metav1.Condition) error
}

type setterConds struct{}

func (setterConds) get(obj client.Object) ([]metav1.Condition, error) {
	s, ok := obj.(conditions.Getter)
	if !ok {
		return nil, fmt.Errorf("%T does not implement conditions.Getter", obj)
	}
	return s.GetConditions(), nil
}

func (setterConds) set(obj client.Object, c []metav1.Condition) error {
	s, ok := obj.(conditions.Setter)
	if !ok {
		return fmt.Errorf("%T does not implement conditions.Setter", obj)
	}
	s.SetConditions(c)
	return nil
}

type pathConds struct {
	f contract.Field[[]metav1.Condition]
}

func (p pathConds) get(obj client.Object) ([]metav1.Condition, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("%T is not unstructured", obj)
	}
	if !p.f.Has(u) {
		return nil, nil
	}
	c, err := p.f.Get(u)
	if err != nil {
		return nil, fmt.Errorf("cannot read the conditions: %w", err)
	}
	return c, nil
}

func (p pathConds) set(obj client.Object, c []metav1.Condition) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("%T is not unstructured", obj)
	}
	if len(c) == 0 {
		p.f.Delete(u)
		return nil
	}
	return p.f.Set(u, c)
}

// conditionsOf returns how to reach obj's conditions: conditions.Setter first, then path on an unstructured
// object; nil when neither applies.
func conditionsOf(obj client.Object, path []string) (condAccess, error) {
	if _, ok := obj.(conditions.Setter); ok {
		return setterConds{}, nil
	}
	if len(path) == 0 {
		return nil, nil
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("conditions path %q needs an *unstructured.Unstructured or a conditions.Setter, not %T", contract.Path(path), obj)
	}
	acc := pathConds{f: contract.NewField[[]metav1.Condition](path...)}
	if _, err := acc.get(u); err != nil {
		return nil, err
	}
	return acc, nil
}

// rebase re-reads the object after a conflict and re-applies only the guarded changes this Helper made:
// the finalizers and condition types it changed go onto the fresh lists, write-once labels the server has
// keep the server's value; the snapshots take the fresh lists as their base.
func (h *Helper) rebase(ctx context.Context, obj client.Object) error {
	fresh, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("cannot copy %T", obj)
	}
	if err := h.c.Get(ctx, client.ObjectKeyFromObject(obj), fresh); err != nil {
		return fmt.Errorf("cannot re-read after a conflict: %w", err)
	}
	// The fresh list becomes the snapshot's, so obj must start from it too even when this Helper changed no
	// finalizer: otherwise the next diff would read another writer's finalizers as removed by this one.
	obj.SetFinalizers(mergeFinalizers(h.main.obj.GetFinalizers(), obj.GetFinalizers(), fresh.GetFinalizers()))
	h.main.obj.SetFinalizers(fresh.GetFinalizers())
	for _, l := range h.opts.writeOnce {
		if v, ok := fresh.GetLabels()[l]; ok {
			setLabel(obj, l, v)
			setLabel(h.main.obj, l, v)
		}
	}
	if err := h.rebaseConditions(obj, fresh); err != nil {
		return err
	}
	obj.SetResourceVersion(fresh.GetResourceVersion())
	h.main.changed()
	h.status.changed()
	return nil
}

// rebaseConditions puts obj's condition changes (against the status snapshot) onto fresh's conditions,
// which become the snapshot's. A type that conflicts keeps fresh's value and is recorded for Patch's error.
func (h *Helper) rebaseConditions(obj, fresh client.Object) error {
	if h.conds == nil {
		return nil
	}
	snap, err := h.conds.get(h.status.obj)
	if err != nil {
		return err
	}
	cur, err := h.conds.get(obj)
	if err != nil {
		return err
	}
	theirs, err := h.conds.get(fresh)
	if err != nil {
		return err
	}
	if !equalConditions(snap, theirs) {
		if err := h.conds.set(obj, h.mergeConditions(snap, cur, theirs)); err != nil {
			return err
		}
		if err := h.conds.set(h.status.obj, slices.Clone(theirs)); err != nil {
			return err
		}
	}
	return nil
}

// afterMain takes the server's answer to a metadata-and-spec patch as the new base: its finalizers and
// conditions are what the server holds at obj's new resourceVersion, so a later guarded status patch is
// computed against them. When this patch alone moved the generation (by one: no other writer changed the
// spec since the read), the conditions the caller changed or owns that observed the old generation observe
// the new one: the spec they were computed with is the one just written, and the next reconcile has nothing
// to rewrite. Any other condition, another writer's in particular, keeps the generation it observed.
func (h *Helper) afterMain(obj, resp client.Object, oldGen int64, before condsBefore) error {
	if resp == nil {
		return nil
	}
	obj.SetFinalizers(resp.GetFinalizers())
	if err := h.rebaseConditions(obj, resp); err != nil {
		return err
	}
	if newGen := obj.GetGeneration(); newGen == oldGen+1 && h.conds != nil {
		if err := h.bumpObservedGeneration(obj, oldGen, newGen, before); err != nil {
			return err
		}
	}
	// The new main snapshot is obj as it is now; the status snapshot keeps the status last persisted.
	snap, err := newSnapshot(obj)
	if err != nil {
		return err
	}
	h.main = snap
	h.status.changed()
	return nil
}

// bumpObservedGeneration moves the caller's conditions from oldGen to newGen: the owned types, and the types
// the caller changed (before.cur against before.snap) whose value survived the rebase.
func (h *Helper) bumpObservedGeneration(obj client.Object, oldGen, newGen int64, before condsBefore) error {
	conds, err := h.conds.get(obj)
	if err != nil {
		return err
	}
	var out []metav1.Condition
	for i := range conds {
		c := &conds[i]
		if c.ObservedGeneration != oldGen || !h.callers(c.Type, before) {
			continue
		}
		if out == nil {
			out = slices.Clone(conds)
		}
		out[i].ObservedGeneration = newGen
	}
	if out == nil {
		return nil
	}
	return h.conds.set(obj, out)
}

// callers reports whether condition type t is the caller's: owned, or changed by the caller since the
// read and not lost to a conflict.
func (h *Helper) callers(t string, before condsBefore) bool {
	if slices.Contains(h.opts.owned, t) {
		return true
	}
	mine := findCondition(before.cur, t)
	if mine == nil || slices.Contains(h.conflicts, t) {
		return false
	}
	old := findCondition(before.snap, t)
	return old == nil || !sameCondition(old, mine)
}

func setLabel(obj client.Object, key, value string) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[key] = value
	obj.SetLabels(labels)
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

// mergeConditions returns fresh with the condition types changed in cur since snap re-applied, by Cluster
// API's rules. A type the caller owns (or every type, with force) takes cur's value, or is removed. Another
// type takes cur's value when fresh still holds snap's, is left as it is when fresh already holds cur's state,
// and otherwise conflicts: another writer changed, added or removed it since the read. A conflicting type
// keeps fresh's value and is added to h.conflicts.
func (h *Helper) mergeConditions(snap, cur, fresh []metav1.Condition) []metav1.Condition {
	out := slices.Clone(fresh)
	put := func(c metav1.Condition) {
		if i := slices.IndexFunc(out, func(x metav1.Condition) bool { return x.Type == c.Type }); i >= 0 {
			out[i] = c
		} else {
			out = append(out, c)
		}
	}
	for _, c := range cur {
		old := findCondition(snap, c.Type)
		if old != nil && sameCondition(old, &c) {
			continue // not changed by the caller
		}
		latest := findCondition(out, c.Type)
		switch {
		case h.opts.wins(c.Type),
			old == nil && latest == nil,                               // added here only
			old != nil && latest != nil && sameCondition(latest, old): // changed here only
			put(c)
		case latest != nil && sameState(latest, &c):
			// Both sides made the same change: fresh's value stays, with its LastTransitionTime.
		default:
			h.conflict(c.Type)
		}
	}
	for i := range snap {
		s := &snap[i]
		if findCondition(cur, s.Type) != nil {
			continue
		}
		// Removed by the caller.
		if latest := findCondition(out, s.Type); latest != nil && !h.opts.wins(s.Type) && !sameState(latest, s) {
			h.conflict(s.Type)
			continue
		}
		out = slices.DeleteFunc(out, func(x metav1.Condition) bool { return x.Type == s.Type })
	}
	conditions.Sort(out)
	return out
}

// conflict records a conflicting condition type once.
func (h *Helper) conflict(t string) {
	if !slices.Contains(h.conflicts, t) {
		h.conflicts = append(h.conflicts, t)
	}
}

func findCondition(list []metav1.Condition, t string) *metav1.Condition {
	for i := range list {
		if list[i].Type == t {
			return &list[i]
		}
	}
	return nil
}

// sameState reports whether two conditions say the same, whatever their LastTransitionTime.
func sameState(a, b *metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.ObservedGeneration == b.ObservedGeneration &&
		a.Reason == b.Reason && a.Message == b.Message
}

// sameCondition reports whether two conditions are equal, their LastTransitionTime the same instant.
func sameCondition(a, b *metav1.Condition) bool {
	return sameState(a, b) && a.LastTransitionTime.Equal(&b.LastTransitionTime)
}
