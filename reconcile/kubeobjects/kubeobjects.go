package kubeobjects

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/internal/prototype"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/redact"
)

// Kind describes one kind of Kubernetes object managed with ensure.Exists. S is the provider's spec, O the
// object type, e.g. *corev1.Pod.
type Kind[S any, O client.Object] struct {
	// Object is an empty object of the kind, e.g. &corev1.Pod{}, as controller-runtime's builder.For(object)
	// takes it: its type alone is used. Required (or the deprecated New).
	Object O
	// List is an empty list of the kind, e.g. &corev1.PodList{}: its type alone is used. Required (or the
	// deprecated NewList).
	List client.ObjectList
	// New returns an empty object of the kind; New is used only when Object is not set.
	//
	// Deprecated: set Object, e.g. Object: &corev1.Pod{}.
	New func() O
	// NewList returns an empty list of the kind; NewList is used only when List is not set.
	//
	// Deprecated: set List, e.g. List: &corev1.PodList{}.
	NewList func() client.ObjectList
	// Namespace is where FindByTags searches, e.g. the namespace of one workload cluster; every namespace
	// when empty (the ownership key is unique, so that finds only the owner's objects, at the cost of a
	// cluster-wide list).
	Namespace string
	// Build returns the object to create for spec, with its namespace and name set (the same name for the
	// same resource on every attempt: a create is idempotent by name); labels and annotations it sets are kept,
	// the ownership tags are added. Required.
	Build func(spec S) (O, error)
	// Validate checks spec before anything is sent; nil accepts every spec.
	Validate func(spec S) error
	// Mutate, when set, makes the Resource a ensure.Updater: it applies spec to obj (a copy of the object
	// as read) and returns the names of the fields it changed, and whether any of them cannot be changed on a
	// live object (replace).
	Mutate func(spec S, obj O) (changed []string, replace bool)
	// Pending, when set, reports provider-specific transitional states (a Pod not running yet), with a
	// reason and a message. An object being deleted is always pending.
	Pending func(obj O) (reason, message string, pending bool)
}

// objects is the ensure.Resource of one Kind on a client.
type objects[S any, O client.Object] struct {
	c    client.Client
	kind Kind[S, O]
	// newObject and newList make the empty objects and lists of the kind (Kind.Object and Kind.List).
	newObject func() O
	newList   func() client.ObjectList
	// secret: the objects are Secrets, read and written with a context whose logger discards everything.
	secret bool
}

// updatable is objects with Mutate: a ensure.Updater as well.
type updatable[S any, O client.Object] struct{ *objects[S, O] }

var (
	_ ensure.Resource[string, client.Object] = (*objects[string, client.Object])(nil)
	_ ensure.PendingReporter[client.Object]  = (*objects[string, client.Object])(nil)
	_ ensure.Updater[string, client.Object]  = updatable[string, client.Object]{}
	_ ensure.Declarer                        = (*objects[string, client.Object])(nil)
)

// New returns the Resource of kind on c: a ensure.Updater too when kind.Mutate is set. c must read from the
// API server (client.New, a manager's GetAPIReader), not from an informer cache: a cache that has not seen an
// object just created yet makes it look deleted, and with ensure.CreateOnce that is a terminal error.
func New[S any, O client.Object](c client.Client, kind Kind[S, O]) (ensure.Resource[S, O], error) {
	switch {
	case c == nil:
		return nil, errors.New("cannot create the objects resource: client is nil")
	case kind.Build == nil:
		return nil, errors.New("cannot create the objects resource: Kind.Build is required")
	}
	newObject, err := factory("Kind.Object", kind.Object, kind.New)
	if err != nil {
		return nil, fmt.Errorf("cannot create the objects resource: %w", err)
	}
	newList, err := factory("Kind.List", kind.List, kind.NewList)
	if err != nil {
		return nil, fmt.Errorf("cannot create the objects resource: %w", err)
	}
	o := &objects[S, O]{c: c, kind: kind, newObject: newObject, newList: newList, secret: isSecret(newObject())}
	if kind.Mutate != nil {
		return updatable[S, O]{o}, nil
	}
	return o, nil
}

// factory returns the maker of empty objects of proto's type (the field named field), or the deprecated
// factory when proto is not set.
func factory[T any](field string, proto T, deprecated func() T) (func() T, error) {
	if v := reflect.ValueOf(proto); (!v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil()) && deprecated != nil {
		return deprecated, nil
	}
	return prototype.Factory(field, proto)
}

// isSecret reports whether obj is a Secret, typed or not.
func isSecret(obj client.Object) bool {
	if _, ok := any(obj).(*corev1.Secret); ok {
		return true
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	return gvk.Group == "" && gvk.Kind == "Secret"
}

// quiet returns the context of the API calls: for Secrets, one whose logger discards everything, because
// client-go logs request and response bodies (the Secret's data) through the context's logger.
func (o *objects[S, O]) quiet(ctx context.Context) context.Context {
	if o.secret {
		return redact.QuietContext(ctx)
	}
	return ctx
}

// ID returns "namespace/name/uid".
func (o *objects[S, O]) ID(obj O) string {
	return obj.GetNamespace() + "/" + obj.GetName() + "/" + string(obj.GetUID())
}

// ParseID splits an ID returned by ID. The UID is empty for an object that has none (a fake client's); such
// an ID names whatever object has the name.
func ParseID(id string) (key client.ObjectKey, uid types.UID, err error) {
	parts := strings.Split(id, "/")
	if len(parts) != 3 || parts[1] == "" {
		return key, "", fmt.Errorf("cannot parse object id %q: want namespace/name/uid", id)
	}
	return client.ObjectKey{Namespace: parts[0], Name: parts[1]}, types.UID(parts[2]), nil
}

// Validate calls Kind.Validate.
func (o *objects[S, O]) Validate(spec S) error {
	if o.kind.Validate == nil {
		return nil
	}
	return o.kind.Validate(spec)
}

// Get returns the object of id; an object of the same name with another UID is another incarnation, and
// the one id names is gone.
func (o *objects[S, O]) Get(ctx context.Context, id string) (O, bool, error) {
	var zero O
	key, uid, err := ParseID(id)
	if err != nil {
		return zero, false, step.Terminal(conditions.ReasonInvalidParameters, err)
	}
	obj := o.newObject()
	if err := o.c.Get(o.quiet(ctx), key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return zero, false, nil
		}
		return zero, false, fmt.Errorf("cannot get %s: %w", key, err)
	}
	if uid != "" && obj.GetUID() != uid {
		return zero, false, nil
	}
	return obj, true, nil
}

// FindByTags returns the oldest object that carries tags (as labels, or annotations for values that are not
// valid label values).
func (o *objects[S, O]) FindByTags(ctx context.Context, tags map[string]string) (O, bool, error) {
	var zero O
	lbls, annotations := split(tags)
	list := o.newList()
	opts := []client.ListOption{client.MatchingLabelsSelector{Selector: labels.SelectorFromSet(lbls)}}
	if o.kind.Namespace != "" {
		opts = append(opts, client.InNamespace(o.kind.Namespace))
	}
	if err := o.c.List(o.quiet(ctx), list, opts...); err != nil {
		return zero, false, fmt.Errorf("cannot list objects by labels %v: %w", lbls, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return zero, false, fmt.Errorf("cannot read the list of objects: %w", err)
	}
	var best O
	var oldest metav1.Time
	found := false
	for _, item := range items {
		obj, ok := item.(O)
		if !ok || !hasAll(obj.GetAnnotations(), annotations) {
			continue
		}
		if created := obj.GetCreationTimestamp(); !found || created.Before(&oldest) {
			best, oldest, found = obj, created, true
		}
	}
	return best, found, nil
}

// Create creates the object Build returns for spec, with the tags. An object of that name that carries the
// same tags is returned as created (a retry after a lost response); one that does not is a terminal error.
func (o *objects[S, O]) Create(ctx context.Context, spec S, _ string, tags map[string]string) (O, error) {
	var zero O
	obj, err := o.kind.Build(spec)
	if err != nil {
		return zero, step.Terminal(conditions.ReasonInvalidParameters, fmt.Errorf("cannot build the object: %w", err))
	}
	lbls, annotations := split(tags)
	obj.SetLabels(merged(obj.GetLabels(), lbls))
	obj.SetAnnotations(merged(obj.GetAnnotations(), annotations))
	key := client.ObjectKeyFromObject(obj)
	err = o.c.Create(o.quiet(ctx), obj)
	if err == nil {
		return obj, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return zero, fmt.Errorf("cannot create %s: %w", key, err)
	}
	existing := o.newObject()
	if err := o.c.Get(o.quiet(ctx), key, existing); err != nil {
		return zero, fmt.Errorf("cannot get %s, which exists: %w", key, err)
	}
	if !hasAll(existing.GetLabels(), lbls) || !hasAll(existing.GetAnnotations(), annotations) {
		return zero, step.Terminal(conditions.ReasonNameTaken, fmt.Errorf("cannot create %s: an object of that name exists and belongs to another owner", key))
	}
	return existing, nil
}

// Delete deletes the object of id gracefully; one that is gone, or replaced by another incarnation, is not
// an error.
func (o *objects[S, O]) Delete(ctx context.Context, id string) error {
	key, uid, err := ParseID(id)
	if err != nil {
		return step.Terminal(conditions.ReasonInvalidParameters, err)
	}
	obj := o.newObject()
	obj.SetNamespace(key.Namespace)
	obj.SetName(key.Name)
	opts := []client.DeleteOption{client.PropagationPolicy("Background")}
	if uid != "" {
		opts = append(opts, client.Preconditions{UID: &uid})
	}
	err = o.c.Delete(o.quiet(ctx), obj, opts...)
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) { // gone, or another incarnation (UID precondition)
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot delete %s: %w", key, err)
	}
	return nil
}

// Guarantees declares what the API server guarantees, so that ensure.Exists writes no note before a create:
//   - a name is unique in its namespace, and Create returns the object of that name that carries the same
//     ownership tags instead of making a second one (ensure.IdempotentByName; Kind.Build names the object, the
//     same name on every attempt, never through metadata.generateName);
//   - a list read from the API server lists an object as soon as the create that made it returns
//     (ImmediateSearch): New requires a client that reads from the API server. Through an informer cache the list
//     would lag behind by the watch's delay, with no bound while the watch reconnects; such a client is not
//     supported, for this reason and for the one New gives.
func (o *objects[S, O]) Guarantees() ensure.Guarantees {
	return ensure.Guarantees{Idempotency: ensure.IdempotentByName, ImmediateSearch: true}
}

// Pending reports an object being deleted, and what Kind.Pending reports.
func (o *objects[S, O]) Pending(obj O) (string, string, bool) {
	if obj.GetDeletionTimestamp() != nil {
		return conditions.ReasonDeleting, "being deleted", true
	}
	if o.kind.Pending != nil {
		return o.kind.Pending(obj)
	}
	return "", "", false
}

// Diff applies the spec to a copy of obj and reports what it changed.
func (u updatable[S, O]) Diff(spec S, obj O) ([]string, bool) {
	c, ok := obj.DeepCopyObject().(O)
	if !ok {
		return nil, false
	}
	return u.kind.Mutate(spec, c)
}

// Update applies the spec to a copy of obj and updates it, with the resourceVersion obj was read at.
func (u updatable[S, O]) Update(ctx context.Context, _ string, spec S, obj O) (O, error) {
	var zero O
	c, ok := obj.DeepCopyObject().(O)
	if !ok {
		return zero, fmt.Errorf("cannot copy %T", obj)
	}
	u.kind.Mutate(spec, c)
	if err := u.c.Update(u.quiet(ctx), c); err != nil {
		return zero, fmt.Errorf("cannot update %s: %w", client.ObjectKeyFromObject(c), err)
	}
	return c, nil
}

// split puts the tags that are valid label values into labels and the others into annotations.
func split(tags map[string]string) (lbls, annotations map[string]string) {
	lbls, annotations = map[string]string{}, map[string]string{}
	for k, v := range tags {
		if len(validation.IsQualifiedName(k)) == 0 && len(validation.IsValidLabelValue(v)) == 0 {
			lbls[k] = v
		} else {
			annotations[k] = v
		}
	}
	return lbls, annotations
}

func merged(base, add map[string]string) map[string]string {
	if len(add) == 0 {
		return base
	}
	out := make(map[string]string, len(base)+len(add))
	maps.Copy(out, base)
	maps.Copy(out, add)
	return out
}

func hasAll(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}
