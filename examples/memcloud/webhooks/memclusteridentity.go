package webhooks

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

// MemClusterIdentity validates MemClusterIdentities: a Secret name, and an allowedNamespaces selector that
// parses (a selector that cannot be parsed would refuse every namespace with a puzzling message later).
type MemClusterIdentity struct{}

// ValidateCreate checks a new identity.
func (MemClusterIdentity) ValidateCreate(_ context.Context, i *v1beta2.MemClusterIdentity) (admission.Warnings, error) {
	return warnOpen(i), invalid(v1beta2.MemClusterIdentityKind, i.Name, validateIdentity(i))
}

// ValidateUpdate checks a changed identity; every field may change (a narrower allowedNamespaces takes effect
// at the clusters' next reconcile).
func (MemClusterIdentity) ValidateUpdate(_ context.Context, _, i *v1beta2.MemClusterIdentity) (admission.Warnings, error) {
	return warnOpen(i), invalid(v1beta2.MemClusterIdentityKind, i.Name, validateIdentity(i))
}

// ValidateDelete allows every delete: clusters that still use the identity stop, with IdentityReady=False.
func (MemClusterIdentity) ValidateDelete(context.Context, *v1beta2.MemClusterIdentity) (admission.Warnings, error) {
	return nil, nil
}

func validateIdentity(i *v1beta2.MemClusterIdentity) field.ErrorList {
	var errs field.ErrorList
	if i.Spec.SecretName == "" {
		errs = append(errs, field.Required(field.NewPath("spec", "secretName"), "must name the credentials Secret"))
	}
	if a := i.Spec.AllowedNamespaces; a != nil && a.Selector != nil {
		if _, err := metav1.LabelSelectorAsSelector(a.Selector); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "allowedNamespaces", "selector"), metav1.FormatLabelSelector(a.Selector), err.Error()))
		}
	}
	return errs
}

// warnOpen warns that an identity no namespace may use is inert.
func warnOpen(i *v1beta2.MemClusterIdentity) admission.Warnings {
	a := i.Spec.AllowedNamespaces
	if a == nil || (len(a.NamespaceList) == 0 && a.Selector == nil) {
		return admission.Warnings{"spec.allowedNamespaces allows no namespace: no MemCluster can use this identity yet"}
	}
	return nil
}
