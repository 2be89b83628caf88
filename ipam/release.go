package ipam

import (
	"context"
	"errors"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/reconcile/step"
)

// Unclaim deletes the claims of owner and returns a Result that is Done once none is left: call it from a step's
// Delete and return its Result, and remove the owner's finalizer only once it is done. It finds the claims by the
// names of reqs' claims and by OwnerLabel, and takes only those owner controls (by API group, kind and name), so
// a claim of another object is never deleted. Unclaim does not rely on the garbage collector (envtest has none,
// and the owner's finalizer would keep the owner, and so the claims, forever) and does not need the Cluster.
//
// A claim that stays after its delete (the IPAM provider's finalizer, until it has released the address) makes
// the Result not done, with conditions.ReasonReleasingIPAddresses, a message naming the claims and the poll
// interval of the reconcile (step.EnvFrom(ctx).PollInterval()) as RequeueAfter. Requests are not checked,
// beyond MaxRequests; a device that is not a DNS label has no claim to find. More requests than MaxRequests and
// a bad owner are a terminal error (step.Terminal) with conditions.ReasonInvalidIPAddress wrapping
// ErrInvalid; the API server's errors are retried with backoff.
func (c *Claimer) Unclaim(ctx context.Context, obj client.Object, reqs []Request) (step.Result, error) {
	left, err := c.release(ctx, obj, reqs)
	switch {
	case errors.Is(err, ErrInvalid):
		return step.Result{}, step.Terminal(conditions.ReasonInvalidIPAddress, err)
	case err != nil:
		return step.Result{}, err
	case len(left) > 0:
		return step.Result{Reason: conditions.ReasonReleasingIPAddresses, Message: releasingMessage(left),
			RequeueAfter: step.EnvFrom(ctx).PollInterval()}, nil
	}
	return step.Result{Done: true}, nil
}

// release is the work of Unclaim: it deletes the claims of owner and returns the names of those left, in name
// order. Its errors are not classified.
func (c *Claimer) release(ctx context.Context, obj client.Object, reqs []Request) (left []string, err error) {
	o, err := c.ownerOf(obj)
	if err != nil {
		return nil, err
	}
	if len(reqs) > MaxRequests {
		return nil, fmt.Errorf("cannot release IP addresses of %s: %d requests, more than %d: %w", o, len(reqs), MaxRequests, ErrInvalid)
	}
	claims, err := c.ownedClaims(ctx, o, reqs)
	if err != nil {
		return nil, err
	}
	for _, claim := range claims {
		gone, err := c.deleteClaim(ctx, claim)
		if err != nil {
			return nil, fmt.Errorf("cannot release IP addresses of %s: %w", o, err)
		}
		if !gone {
			left = append(left, claim.GetName())
		}
	}
	return left, nil
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
			return false, nil // another object under the name: the next Unclaim looks again
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
