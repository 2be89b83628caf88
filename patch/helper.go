package patch

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// ErrConditionConflict is wrapped by the error of a Patch that kept the server's value of a condition type
// because another writer changed it since the read and this Helper changed it differently, and the caller
// neither owns the type (WithOwnedConditions) nor forces (WithForceOverwriteConditions). Everything else was
// persisted; the next reconcile reads the other writer's value and decides again.
var ErrConditionConflict = errors.New("condition changed by another writer since the read")

// ErrWrongObject is wrapped by the error of HasChanges, Patch and PatchSpec given another object than the one
// the Helper was created for (another kind, namespace or name, or another UID when both have one).
var ErrWrongObject = errors.New("a Helper patches only the object it was created for")

// Helper persists the changes made to one object since it was read; see the package documentation.
// A Helper is for one object and one goroutine.
type Helper struct {
	c     client.Client
	desc  objectName // "Kind namespace/name", for errors
	opts  options
	conds condAccess // nil when conditions are not guarded
	// main is the base of the metadata-and-spec diff, status the base of the status diff. They are one
	// snapshot after NewHelper and Patch, two after PatchSpec (new metadata and spec, old status).
	main, status *snapshot
	// conflicts are the condition types whose server value was kept since the last Patch (ErrConditionConflict).
	conflicts []string
}

// NewHelper returns a Helper for obj, which must have been read from the API server (or be about to be
// patched from the state it has now). It takes a deep copy of obj as the snapshot to diff against.
func NewHelper(c client.Client, obj client.Object, opts ...Option) (*Helper, error) {
	if c == nil {
		return nil, errors.New("cannot create a patch helper: client is nil")
	}
	if isNil(obj) {
		return nil, errors.New("cannot create a patch helper: object is nil")
	}
	h := &Helper{c: c, opts: options{retries: DefaultConflictRetries}}
	o := &h.opts // the options live in the helper, so that applying them costs no allocation of their own
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	if o.kind == "" {
		gvk, err := apiutil.GVKForObject(obj, c.Scheme())
		if err != nil {
			return nil, fmt.Errorf("cannot create a patch helper for %T: %w", obj, err)
		}
		o.kind = gvk.Kind
	}
	desc := objectName{kind: o.kind, namespace: obj.GetNamespace(), name: obj.GetName()}
	conds, err := conditionsOf(obj, o.conditionsPath)
	if err != nil {
		return nil, fmt.Errorf("cannot create a patch helper for %s: %w", desc, err)
	}
	if o.retries < 0 {
		return nil, fmt.Errorf("cannot create a patch helper for %s: conflict retries %d must not be negative", desc, o.retries)
	}
	snap, err := newSnapshot(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot create a patch helper for %s: %w", desc, err)
	}
	h.desc, h.conds, h.main, h.status = desc, conds, snap, snap
	return h, nil
}

// OwnConditions adds condition types to those the caller owns (WithOwnedConditions), for types known only
// after NewHelper.
func (h *Helper) OwnConditions(types ...string) { h.opts.own(types) }

// HasChanges reports whether Patch would send anything.
func (h *Helper) HasChanges(obj client.Object) (bool, error) {
	if err := h.same(obj, "diff"); err != nil {
		return false, err
	}
	d, err := h.diff(obj)
	if err != nil {
		return false, fmt.Errorf("cannot diff %s: %w", h.desc, err)
	}
	return d.main != nil || d.status != nil, nil
}

// PersistedLabel returns the value of label key as last read from or written to the API server.
func (h *Helper) PersistedLabel(key string) string { return h.main.obj.GetLabels()[key] }

// Patch sends what changed in obj since the snapshot: metadata and spec first, then status through the
// status subresource; nothing when nothing changed. obj gets the new resourceVersion and generation, and
// becomes the new snapshot. When a condition type conflicted (since the last Patch, PatchSpec included),
// the server's value is kept, everything else is sent, and the error wraps ErrConditionConflict.
func (h *Helper) Patch(ctx context.Context, obj client.Object) error { return h.patch(ctx, obj, true) }

// PatchSpec sends what changed in obj's metadata and spec since the snapshot and keeps the status changes
// for the next Patch; nothing when metadata and spec did not change. A condition conflict it finds is
// reported by the next Patch.
func (h *Helper) PatchSpec(ctx context.Context, obj client.Object) error {
	return h.patch(ctx, obj, false)
}

func (h *Helper) patch(ctx context.Context, obj client.Object, withStatus bool) error {
	if err := h.same(obj, "patch"); err != nil {
		return err
	}
	d, err := h.diff(obj)
	if err != nil {
		return fmt.Errorf("cannot patch %s: %w", h.desc, err)
	}
	sentMain := d.main != nil
	if sentMain {
		oldGen := obj.GetGeneration()
		var before condsBefore
		if h.conds != nil {
			if before, err = h.condsBefore(obj); err != nil {
				return fmt.Errorf("cannot patch %s: %w", h.desc, err)
			}
		}
		resp, err := h.send(ctx, obj, d, false)
		if apierrors.IsNotFound(err) && !obj.GetDeletionTimestamp().IsZero() && len(obj.GetFinalizers()) == 0 {
			// The last finalizer is gone, and so is the object.
			return h.resnap(obj)
		}
		if err != nil {
			return fmt.Errorf("cannot patch %s: %w", h.desc, err)
		}
		if err := h.afterMain(obj, resp, oldGen, before); err != nil {
			return fmt.Errorf("cannot patch %s: %w", h.desc, err)
		}
		if !withStatus {
			return nil
		}
		if d, err = h.diff(obj); err != nil {
			return fmt.Errorf("cannot patch %s: %w", h.desc, err)
		}
	}
	switch {
	case !withStatus:
		return nil
	case d.status == nil && sentMain:
		if err := h.resnap(obj); err != nil {
			return err
		}
		return h.conflictError() // spec sent, status unchanged: one snapshot again
	case d.status == nil:
		return h.conflictError()
	}
	_, err = h.send(ctx, obj, d, true)
	if apierrors.IsNotFound(err) && !obj.GetDeletionTimestamp().IsZero() {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("cannot patch status of %s: %w", h.desc, err)
	}
	if err := h.resnap(obj); err != nil {
		return err
	}
	return h.conflictError()
}

// conflictError reports the condition conflicts found since the last Patch, once.
func (h *Helper) conflictError() error {
	if len(h.conflicts) == 0 {
		return nil
	}
	types := h.conflicts
	h.conflicts = nil
	return fmt.Errorf("cannot patch %s: kept the server's value of condition types %q: %w", h.desc, types, ErrConditionConflict)
}

// send sends the main or the status patch of d, re-applying it on a fresh read after a conflict when it is
// guarded. Only the patch that changes a guarded list carries the resourceVersion: the main patch for the
// finalizers and write-once labels, the status patch for the conditions. It returns the server's answer.
func (h *Helper) send(ctx context.Context, obj client.Object, d *delta, status bool) (client.Object, error) {
	for attempt := 0; ; attempt++ {
		body, guarded := d.main, d.finalizers || d.writeOnce
		if status {
			body, guarded = d.status, d.conditions
		}
		if body == nil {
			return nil, nil // a rebase left nothing to send
		}
		if guarded {
			var err error
			if body, err = withResourceVersion(body, obj.GetResourceVersion()); err != nil {
				return nil, err
			}
		}
		target, ok := obj.DeepCopyObject().(client.Object)
		if !ok {
			return nil, fmt.Errorf("cannot copy %T", obj)
		}
		var err error
		if status {
			err = h.c.Status().Patch(ctx, target, client.RawPatch(types.MergePatchType, body))
		} else {
			err = h.c.Patch(ctx, target, client.RawPatch(types.MergePatchType, body))
		}
		if err == nil {
			obj.SetResourceVersion(target.GetResourceVersion())
			obj.SetGeneration(target.GetGeneration())
			return target, nil
		}
		if !apierrors.IsConflict(err) || !guarded || attempt >= h.opts.retries {
			return nil, err
		}
		if err := h.rebase(ctx, obj); err != nil {
			return nil, err
		}
		if d, err = h.diff(obj); err != nil {
			return nil, err
		}
	}
}

// same refuses an object other than the one the Helper was created for: its diff against the snapshot
// would be meaningless, and sent to the wrong object.
func (h *Helper) same(obj client.Object, verb string) error {
	if isNil(obj) {
		return fmt.Errorf("cannot %s %s: object is nil", verb, h.desc)
	}
	snap := h.main.obj
	otherKind := reflect.TypeOf(obj) != reflect.TypeOf(snap)
	if u, ok := obj.(*unstructured.Unstructured); ok && !otherKind {
		su, _ := snap.(*unstructured.Unstructured) // the same type, checked above
		otherKind = u.GetKind() != su.GetKind() || u.GetAPIVersion() != su.GetAPIVersion()
	}
	if otherKind || obj.GetName() != snap.GetName() || obj.GetNamespace() != snap.GetNamespace() {
		return fmt.Errorf("cannot %s %s: the object given is %s: %w", verb, h.desc, h.describe(obj, otherKind), ErrWrongObject)
	}
	if a, b := obj.GetUID(), snap.GetUID(); a != "" && b != "" && a != b {
		return fmt.Errorf("cannot %s %s: the object given has UID %q, not %q: %w", verb, h.desc, a, b, ErrWrongObject)
	}
	return nil
}

// describe names another object for an error: its kind (with group and version when only they differ),
// namespace and name.
func (h *Helper) describe(obj client.Object, otherKind bool) string {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if _, ok := obj.(*unstructured.Unstructured); !ok {
		var err error
		if gvk, err = apiutil.GVKForObject(obj, h.c.Scheme()); err != nil {
			return fmt.Sprintf("%T %s/%s", obj, obj.GetNamespace(), obj.GetName())
		}
	}
	kind := gvk.Kind
	if otherKind && kind == h.desc.kind {
		kind = gvk.String()
	}
	return objectName{kind: kind, namespace: obj.GetNamespace(), name: obj.GetName()}.String()
}

// condsBefore is what the conditions were before a metadata-and-spec patch, for afterMain.
type condsBefore struct{ snap, cur []metav1.Condition }

func (h *Helper) condsBefore(obj client.Object) (condsBefore, error) {
	snap, err := h.conds.get(h.status.obj)
	if err != nil {
		return condsBefore{}, err
	}
	cur, err := h.conds.get(obj)
	return condsBefore{snap: snap, cur: cur}, err
}

// resnap makes obj the snapshot of both parts.
func (h *Helper) resnap(obj client.Object) error {
	snap, err := newSnapshot(obj)
	if err != nil {
		return fmt.Errorf("cannot patch %s: %w", h.desc, err)
	}
	h.main, h.status = snap, snap
	return nil
}

// isNil reports whether obj is nil or a nil pointer.
func isNil(obj client.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// objectName names an object in errors as "Kind namespace/name"; it is formatted only when an error is.
type objectName struct{ kind, namespace, name string }

func (n objectName) String() string { return n.kind + " " + n.namespace + "/" + n.name }
