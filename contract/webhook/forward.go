package webhook

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract/admission"
)

// Immutable is contract/admission.Immutable.
//
// Deprecated: use github.com/capkit/capkit/contract/admission.Immutable.
//
//go:fix inline
const Immutable = admission.Immutable

// Registrar is contract/admission.Registrar.
//
// Deprecated: use github.com/capkit/capkit/contract/admission.Registrar.
//
//go:fix inline
type Registrar = admission.Registrar

// SetupWithManager calls contract/admission.SetupWithManager.
//
// Deprecated: use github.com/capkit/capkit/contract/admission.SetupWithManager.
//
//go:fix inline
func SetupWithManager(mgr ctrl.Manager, hooks ...admission.Registrar) error {
	return admission.SetupWithManager(mgr, hooks...)
}

// TopologyDryRunAnnotation is contract/admission.TopologyDryRunAnnotation.
//
// Deprecated: use github.com/capkit/capkit/contract/admission.TopologyDryRunAnnotation.
//
//go:fix inline
const TopologyDryRunAnnotation = admission.TopologyDryRunAnnotation

// ValidateImmutable calls contract/admission.ValidateImmutable.
//
// Deprecated: use github.com/capkit/capkit/contract/admission.ValidateImmutable.
//
//go:fix inline
func ValidateImmutable(ctx context.Context, newObj metav1.Object, path *field.Path, oldSpec any, newSpec any) field.ErrorList {
	return admission.ValidateImmutable(ctx, newObj, path, oldSpec, newSpec)
}

// ValidateImmutableExcept calls contract/admission.ValidateImmutableExcept.
//
// Deprecated: use github.com/capkit/capkit/contract/admission.ValidateImmutableExcept.
//
//go:fix inline
func ValidateImmutableExcept(path *field.Path, oldSpec any, newSpec any, mutable [][]string) field.ErrorList {
	return admission.ValidateImmutableExcept(path, oldSpec, newSpec, mutable)
}

// Webhook is contract/admission.Webhook.
//
// Deprecated: use github.com/capkit/capkit/contract/admission.Webhook.
//
//go:fix inline
type Webhook[T client.Object, S any] = admission.Webhook[T, S]
