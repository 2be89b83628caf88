package patch

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

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
}

// NewHelper returns a Helper for obj, which must have been read from the API server (or be about to be
// patched from the state it has now). It takes a deep copy of obj as the snapshot to diff against.
func NewHelper(c client.Client, obj client.Object, opts ...Option) (*Helper, error) {
	if c == nil {
		return nil, errors.New("cannot create a patch helper: client is nil")
	}
	if obj == nil || (reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil()) {
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

// HasChanges reports whether Patch would send anything.
func (h *Helper) HasChanges(obj client.Object) (bool, error) {
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
// becomes the new snapshot.
func (h *Helper) Patch(ctx context.Context, obj client.Object) error { return h.patch(ctx, obj, true) }

// PatchSpec sends what changed in obj's metadata and spec since the snapshot and keeps the status changes
// for the next Patch; nothing when metadata and spec did not change.
func (h *Helper) PatchSpec(ctx context.Context, obj client.Object) error {
	return h.patch(ctx, obj, false)
}

func (h *Helper) patch(ctx context.Context, obj client.Object, withStatus bool) error {
	if obj == nil {
		return fmt.Errorf("cannot patch %s: object is nil", h.desc)
	}
	d, err := h.diff(obj)
	if err != nil {
		return fmt.Errorf("cannot patch %s: %w", h.desc, err)
	}
	sentMain := d.main != nil
	if sentMain {
		oldGen := obj.GetGeneration()
		resp, err := h.send(ctx, obj, d, false)
		if apierrors.IsNotFound(err) && !obj.GetDeletionTimestamp().IsZero() && len(obj.GetFinalizers()) == 0 {
			// The last finalizer is gone, and so is the object.
			return h.resnap(obj)
		}
		if err != nil {
			return fmt.Errorf("cannot patch %s: %w", h.desc, err)
		}
		if err := h.afterMain(obj, resp, oldGen); err != nil {
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
		return h.resnap(obj) // spec sent, status unchanged: one snapshot again
	case d.status == nil:
		return nil
	}
	_, err = h.send(ctx, obj, d, true)
	if apierrors.IsNotFound(err) && !obj.GetDeletionTimestamp().IsZero() {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("cannot patch status of %s: %w", h.desc, err)
	}
	return h.resnap(obj)
}

// send sends the main or the status patch of d, re-applying it on a fresh read after a conflict when it is
// guarded. It returns the server's answer.
func (h *Helper) send(ctx context.Context, obj client.Object, d *delta, status bool) (client.Object, error) {
	guarded := d.guarded()
	for attempt := 0; ; attempt++ {
		body := d.main
		if status {
			body = d.status
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

// resnap makes obj the snapshot of both parts.
func (h *Helper) resnap(obj client.Object) error {
	snap, err := newSnapshot(obj)
	if err != nil {
		return fmt.Errorf("cannot patch %s: %w", h.desc, err)
	}
	h.main, h.status = snap, snap
	return nil
}

// objectName names an object in errors as "Kind namespace/name"; it is formatted only when an error is.
type objectName struct{ kind, namespace, name string }

func (n objectName) String() string { return n.kind + " " + n.namespace + "/" + n.name }
