package conversion

import (
	"context"
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// migratePageSize is how many objects MigrateStorage lists at a time.
const migratePageSize = 500

// MigrateStorage rewrites every object of the CRD named crdName, so that etcd holds each in the CRD's storage
// version, then makes the storage version the only one in the CRD's status.storedVersions. It is the step after
// a release switched the storage version (say to v1beta2) and before a later release stops serving the old one:
// the API server refuses to drop a version that status.storedVersions still names, and an object stored in a
// version the CRD no longer has cannot be read. It returns how many objects it rewrote; a CRD whose only stored
// version is its storage version is left alone (0, nil).
//
// Each object is read and written back unchanged at the storage version (the conversion webhook, if any, must
// be serving); the API server encodes it anew. An object deleted meanwhile is skipped, and a conflict is retried
// with the object read again. c needs list and update on the CRD's resource and update on
// customresourcedefinitions/status. Running it again is safe.
func MigrateStorage(ctx context.Context, c client.Client, crdName string) (int, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: crdName}, crd); err != nil {
		return 0, fmt.Errorf("cannot migrate the storage of CRD %q: %w", crdName, err)
	}
	storage := ""
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			storage = v.Name
		}
	}
	if storage == "" {
		return 0, fmt.Errorf("cannot migrate the storage of CRD %q: no version has storage: true", crdName)
	}
	if slices.Equal(crd.Status.StoredVersions, []string{storage}) {
		return 0, nil
	}
	gvk := crd.Spec.Names.ListKind
	n := 0
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(crd.Spec.Group + "/" + storage)
	list.SetKind(gvk)
	for {
		if err := c.List(ctx, list, client.Limit(migratePageSize), client.Continue(list.GetContinue())); err != nil {
			return n, fmt.Errorf("cannot migrate the storage of CRD %q: cannot list %s: %w", crdName, gvk, err)
		}
		for i := range list.Items {
			obj := &list.Items[i]
			if err := rewrite(ctx, c, obj); err != nil {
				return n, fmt.Errorf("cannot migrate the storage of CRD %q: cannot rewrite %s %s: %w", crdName, obj.GetKind(),
					client.ObjectKeyFromObject(obj), err)
			}
			n++
		}
		if list.GetContinue() == "" {
			break
		}
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKey{Name: crdName}, crd); err != nil {
			return err
		}
		crd.Status.StoredVersions = []string{storage}
		return c.Status().Update(ctx, crd)
	})
	if err != nil {
		return n, fmt.Errorf("cannot migrate the storage of CRD %q: cannot set status.storedVersions to [%s]: %w", crdName, storage, err)
	}
	return n, nil
}

// rewrite writes obj back unchanged, reading it again after a conflict; an object that is gone is done.
func rewrite(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := c.Update(ctx, obj)
		if apierrors.IsConflict(err) {
			if getErr := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); getErr != nil {
				return getErr
			}
		}
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
