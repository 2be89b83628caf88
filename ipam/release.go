package ipam

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Release deletes the claims of owner and reports done once none is left. It finds them by the names of reqs'
// claims and by OwnerLabel, and takes only those owner controls (by API group, kind and name), so a claim of
// another object is never deleted. Release does not rely on the garbage collector (envtest has none, and the
// owner's finalizer would keep the owner, and so the claims, forever) and does not need the Cluster: call it in
// the owner's delete path, and remove the owner's finalizer only when done. A claim that stays after its delete
// (the IPAM provider's finalizer, until it has released the address) makes done false: requeue, or watch the
// claims. Requests are not checked, beyond MaxRequests; a device that is not a DNS label has no claim to find.
func (c *Claimer) Release(ctx context.Context, obj client.Object, reqs []Request) (done bool, err error) {
	o, err := c.ownerOf(obj)
	if err != nil {
		return false, err
	}
	if len(reqs) > MaxRequests {
		return false, fmt.Errorf("cannot release IP addresses of %s: %d requests, more than %d: %w", o, len(reqs), MaxRequests, ErrInvalid)
	}
	claims, err := c.ownedClaims(ctx, o, reqs)
	if err != nil {
		return false, err
	}
	left := 0
	for _, claim := range claims {
		gone, err := c.deleteClaim(ctx, claim)
		if err != nil {
			return false, fmt.Errorf("cannot release IP addresses of %s: %w", o, err)
		}
		if !gone {
			left++
		}
	}
	return left == 0, nil
}

// ownedClaims returns the claims that o controls, by name.
func (c *Claimer) ownedClaims(ctx context.Context, o owner, reqs []Request) ([]*unstructured.Unstructured, error) {
	found := map[string]*unstructured.Unstructured{}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(ClaimGVK.GroupVersion().WithKind(ClaimKind + "List"))
	if err := c.reader.List(ctx, list, client.InNamespace(o.namespace), client.MatchingLabels{OwnerLabel: ownerLabelValue(o.name)}); err != nil {
		return nil, fmt.Errorf("cannot list IPAddressClaims of %s: %w", o, err)
	}
	for i := range list.Items {
		if claim := &list.Items[i]; o.controls(claim) {
			found[claim.GetName()] = claim
		}
	}
	perDevice := map[string]int{}
	for _, r := range reqs {
		name := ClaimName(o.name, r.Device, perDevice[r.Device])
		perDevice[r.Device]++
		if _, ok := found[name]; ok || len(validation.IsDNS1123Subdomain(name)) > 0 {
			continue
		}
		claim := ClaimObject()
		err := c.reader.Get(ctx, client.ObjectKey{Namespace: o.namespace, Name: name}, claim)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("cannot get IPAddressClaim %q of %s: %w", name, o, err)
		case o.controls(claim):
			found[name] = claim
		}
	}
	out := make([]*unstructured.Unstructured, 0, len(found))
	for _, claim := range found {
		out = append(out, claim)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// deleteClaim deletes claim unless it is being deleted already, and reports whether it is gone. The delete is
// conditional on the UID, so that a claim recreated meanwhile under the name (by anyone) is not deleted unseen.
func (c *Claimer) deleteClaim(ctx context.Context, claim *unstructured.Unstructured) (bool, error) {
	key := client.ObjectKeyFromObject(claim)
	if claim.GetDeletionTimestamp() == nil {
		var opts []client.DeleteOption
		if uid := claim.GetUID(); uid != "" {
			opts = append(opts, client.Preconditions{UID: &uid})
		}
		err := c.client.Delete(ctx, claim, opts...)
		switch {
		case apierrors.IsNotFound(err):
			return true, nil
		case apierrors.IsConflict(err):
			return false, nil // another object under the name: the next Release looks again
		case err != nil:
			return false, fmt.Errorf("cannot delete IPAddressClaim %q: %w", key, err)
		}
	}
	err := c.reader.Get(ctx, key, ClaimObject())
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot get IPAddressClaim %q: %w", key, err)
	}
	return false, nil
}
