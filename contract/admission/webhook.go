package admission

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/contract/conversion"
)

// Webhook is the defaulting and validating admission webhook of the provider's type T, whose spec (or, for a
// template, templated spec) is S. It implements controller-runtime's admission.Defaulter[T] and
// admission.Validator[T]; SetupWithManager registers it.
type Webhook[T client.Object, S any] struct {
	// GroupKind names the type in the errors, e.g. MyMachine.infrastructure.example.com; default: the kind
	// of the admission request.
	GroupKind schema.GroupKind
	// Spec returns the part of an object that Default and Validate work on: &m.Spec, or
	// &t.Spec.Template.Spec for a template. Required.
	Spec func(obj T) *S
	// Path is where Spec lies in the object, for the errors; default spec, or spec.template.spec for a
	// template.
	Path *field.Path
	// Template makes the object's whole spec immutable after creation, except in the topology controller's
	// dry-runs (ValidateImmutable): the contract of InfraClusterTemplates and InfraMachineTemplates.
	Template bool
	// TemplateMetadataMutable, with Template, makes only the templated spec (Spec) immutable, so that
	// spec.template.metadata may change, as in Cluster API's Docker provider.
	TemplateMetadataMutable bool
	// DefaultSpec fills the unset fields of a spec. Nil (and KeepStatus false): no defaulting webhook.
	DefaultSpec func(spec *S)
	// KeepStatus is for a kind served in versions converted with a status stash (conversion.StashStatus): the
	// defaulting webhook calls conversion.KeepStatus first, so that a create or an update of the main
	// resource, in any version, cannot set status through the stash annotation. Register the webhook for the
	// hub version with failurePolicy Fail (controller-gen's default). Only for a kind whose hub version has a
	// status subresource: without one, the main resource is where status is written.
	KeepStatus bool
	// ValidateSpec checks a spec found at path: on create, and on update unless the object is being
	// deleted. Nil: every spec is valid.
	ValidateSpec func(spec *S, path *field.Path) field.ErrorList
	// ValidateName checks the object's name, found at path (metadata.name), on create, for a provider whose cloud
	// names a resource after the object, within the cloud's limits (a vSphere VM's name has at most 80
	// characters). Names never change, so no update is checked. Nil: every name the API server accepts.
	ValidateName func(name string, path *field.Path) field.ErrorList
	// ValidateSpecUpdate checks a change of the spec found at path, e.g. that immutable fields keep their
	// value; it is called even for an object being deleted. Nil: every change is allowed (but Template's
	// rule).
	ValidateSpecUpdate func(oldSpec, newSpec *S, path *field.Path) field.ErrorList
}

var (
	_ admission.Defaulter[client.Object] = Webhook[client.Object, struct{}]{}
	_ admission.Validator[client.Object] = Webhook[client.Object, struct{}]{}
)

// Default keeps the stored status when KeepStatus is set (conversion.KeepStatus), then fills the unset fields
// of obj's spec with DefaultSpec.
func (w Webhook[T, S]) Default(ctx context.Context, obj T) error {
	if w.KeepStatus {
		if err := conversion.KeepStatus(ctx, obj); err != nil {
			return err
		}
	}
	if w.DefaultSpec != nil {
		w.DefaultSpec(w.Spec(obj))
	}
	return nil
}

// ValidateCreate checks obj's name with ValidateName and its spec with ValidateSpec; the error is a 422 Invalid
// that names every field.
func (w Webhook[T, S]) ValidateCreate(ctx context.Context, obj T) (admission.Warnings, error) {
	var errs field.ErrorList
	if w.ValidateName != nil {
		errs = w.ValidateName(obj.GetName(), field.NewPath("metadata", "name"))
	}
	return nil, w.invalid(ctx, obj, append(errs, w.validate(obj)...))
}

// ValidateUpdate checks the change from oldObj to newObj: with Template, that the spec did not change
// (except in the topology controller's dry-runs), and ValidateSpecUpdate; then, unless newObj is being
// deleted, its spec with ValidateSpec.
func (w Webhook[T, S]) ValidateUpdate(ctx context.Context, oldObj, newObj T) (admission.Warnings, error) {
	var errs field.ErrorList
	switch {
	case w.Template && w.TemplateMetadataMutable:
		errs = append(errs, ValidateImmutable(ctx, newObj, w.path(), w.Spec(oldObj), w.Spec(newObj))...)
	case w.Template:
		oldSpec, err := wholeSpec(oldObj)
		if err != nil {
			return nil, err
		}
		newSpec, err := wholeSpec(newObj)
		if err != nil {
			return nil, err
		}
		errs = append(errs, ValidateImmutable(ctx, newObj, field.NewPath("spec"), oldSpec, newSpec)...)
	}
	if w.ValidateSpecUpdate != nil {
		errs = append(errs, w.ValidateSpecUpdate(w.Spec(oldObj), w.Spec(newObj), w.path())...)
	}
	if newObj.GetDeletionTimestamp().IsZero() { // never block the removal of a finalizer
		errs = append(errs, w.validate(newObj)...)
	}
	return nil, w.invalid(ctx, newObj, errs)
}

// ValidateDelete accepts every delete.
func (w Webhook[T, S]) ValidateDelete(context.Context, T) (admission.Warnings, error) {
	return nil, nil
}

// SetupWithManager registers the webhook with mgr's webhook server: the validating webhook, and the
// defaulting webhook when DefaultSpec or KeepStatus is set. mgr's scheme must hold T.
func (w Webhook[T, S]) SetupWithManager(mgr ctrl.Manager) error {
	if w.Spec == nil {
		return fmt.Errorf("cannot set up the webhook of %T: Spec must not be nil", *new(T))
	}
	var obj T
	obj = reflect.New(reflect.TypeOf(obj).Elem()).Interface().(T)
	b := ctrl.NewWebhookManagedBy(mgr, obj).WithValidator(w)
	if w.DefaultSpec != nil || w.KeepStatus {
		b = b.WithDefaulter(w)
	}
	if err := b.Complete(); err != nil {
		return fmt.Errorf("cannot set up the webhooks of %T: %w", obj, err)
	}
	return nil
}

// Registrar is a webhook that registers itself with a manager, such as a Webhook.
type Registrar interface {
	// SetupWithManager registers the webhook with mgr's webhook server.
	SetupWithManager(mgr ctrl.Manager) error
}

// SetupWithManager registers every webhook of hooks with mgr, in order, and stops at the first error.
func SetupWithManager(mgr ctrl.Manager, hooks ...Registrar) error {
	for _, h := range hooks {
		if err := h.SetupWithManager(mgr); err != nil {
			return err
		}
	}
	return nil
}

func (w Webhook[T, S]) validate(obj T) field.ErrorList {
	if w.ValidateSpec == nil {
		return nil
	}
	return w.ValidateSpec(w.Spec(obj), w.path())
}

func (w Webhook[T, S]) path() *field.Path {
	switch {
	case w.Path != nil:
		return w.Path
	case w.Template:
		return field.NewPath("spec", "template", "spec")
	default:
		return field.NewPath("spec")
	}
}

// invalid returns the 422 Invalid error of errs, or nil when there are none.
func (w Webhook[T, S]) invalid(ctx context.Context, obj T, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	gk := w.GroupKind
	if gk.Empty() {
		if req, err := admission.RequestFromContext(ctx); err == nil {
			gk = schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
		} else {
			gk = obj.GetObjectKind().GroupVersionKind().GroupKind()
		}
	}
	return apierrors.NewInvalid(gk, obj.GetName(), errs)
}

// wholeSpec returns obj's spec as JSON values, for ValidateImmutable.
func wholeSpec(obj client.Object) (map[string]any, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot read the spec of %s %q: %w", reflect.TypeOf(obj).Elem().Name(), obj.GetName(), err)
	}
	spec, ok := u["spec"].(map[string]any)
	if !ok && u["spec"] != nil {
		return nil, errors.New("cannot read the spec of " + reflect.TypeOf(obj).Elem().Name() + ": not an object")
	}
	return spec, nil
}
