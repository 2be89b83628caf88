package patch

import (
	"context"
	"fmt"
	"reflect"
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
// which become the snapshot's.
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
		if err := h.conds.set(obj, mergeConditions(snap, cur, theirs)); err != nil {
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
// computed against them. Conditions that observed the old generation observe the new one when the patch
// bumped it (a spec change made by this controller), so the next reconcile has nothing to rewrite.
func (h *Helper) afterMain(obj, resp client.Object, oldGen int64) error {
	if resp == nil {
		return nil
	}
	obj.SetFinalizers(resp.GetFinalizers())
	if err := h.rebaseConditions(obj, resp); err != nil {
		return err
	}
	if newGen := obj.GetGeneration(); newGen != oldGen && h.conds != nil {
		conds, err := h.conds.get(obj)
		if err != nil {
			return err
		}
		conds = slices.Clone(conds)
		bumped := false
		for i := range conds {
			if conds[i].ObservedGeneration == oldGen {
				conds[i].ObservedGeneration, bumped = newGen, true
			}
		}
		if bumped {
			if err := h.conds.set(obj, conds); err != nil {
				return err
			}
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
