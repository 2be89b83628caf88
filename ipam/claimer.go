package ipam

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/reconcile/step"
)

// AddressClaimer claims an object's IP addresses from Cluster API IPAM pools and releases them, with the step
// results of capkit's reconcilers: the narrow interface a provider's service depends on, so that its tests can
// give it a double. *Claimer implements it.
type AddressClaimer interface {
	// Claim creates owner's missing IPAddressClaims for cluster, one per request, and returns the addresses in
	// request order with a Result that is Done once every claim is bound.
	Claim(ctx context.Context, owner client.Object, cluster string, reqs []Request) ([]Address, step.Result, error)
	// Unclaim deletes owner's claims and returns a Result that is Done once none is left.
	Unclaim(ctx context.Context, owner client.Object, reqs []Request) (step.Result, error)
}

var _ AddressClaimer = (*Claimer)(nil)

// Claimer claims, waits for and releases the IP addresses of machines. It keeps no state: everything is in the
// claims, so a restart or a clusterctl move loses nothing.
type Claimer struct {
	client client.Client
	reader client.Reader
}

// Option configures NewClaimer.
type Option func(*Claimer)

// WithReader reads claims and addresses with r instead of the client, e.g. the manager's uncached API reader
// (mgr.GetAPIReader()), so that Unclaim never misses a claim that the cache does not hold yet.
func WithReader(r client.Reader) Option { return func(c *Claimer) { c.reader = r } }

// NewClaimer returns a Claimer that writes with c, a client whose scheme knows the owner's type (for the owner
// reference's group, version and kind; an unstructured owner carries its own).
func NewClaimer(c client.Client, opts ...Option) (*Claimer, error) {
	if c == nil {
		return nil, errors.New("cannot create IPAM claimer: client is nil")
	}
	cl := &Claimer{client: c, reader: c}
	for _, opt := range opts {
		opt(cl)
	}
	if cl.reader == nil {
		return nil, errors.New("cannot create IPAM claimer: reader is nil")
	}
	return cl, nil
}

// owner is what a Claimer needs of the owner of claims.
type owner struct {
	gvk             schema.GroupVersionKind
	namespace, name string
	uid             types.UID
}

func (o owner) String() string { return fmt.Sprintf("%s %q", o.gvk.Kind, o.namespace+"/"+o.name) }

func (c *Claimer) ownerOf(obj client.Object) (owner, error) {
	if obj == nil {
		return owner{}, fmt.Errorf("cannot use owner: nil object: %w", ErrInvalid)
	}
	gvk, err := apiutil.GVKForObject(obj, c.client.Scheme())
	if err != nil {
		return owner{}, fmt.Errorf("cannot find the kind of owner %q: %w", obj.GetName(), err)
	}
	o := owner{gvk: gvk, namespace: obj.GetNamespace(), name: obj.GetName(), uid: obj.GetUID()}
	if o.namespace == "" || o.name == "" || gvk.Kind == "" {
		return owner{}, fmt.Errorf("cannot use owner %s: a namespaced object with a name and a kind is needed: %w", o, ErrInvalid)
	}
	return o, nil
}

// controls reports whether o is the controller of claim: by API group, kind and name, not by UID, which
// clusterctl move changes (it rewrites the owner references with the new UIDs; a provider upgrade may leave the
// old API version).
func (o owner) controls(claim metav1.Object) bool {
	ref := metav1.GetControllerOfNoCopy(claim)
	if ref == nil {
		return false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && gv.Group == o.gvk.Group && ref.Kind == o.gvk.Kind && ref.Name == o.name
}

// Claim creates any missing claim of owner (the InfraMachine) for cluster, one per request, and returns the
// addresses in request order with a Result that is Done once every claim has its address: call it from a step's
// Reconcile and return its Result. Until then it returns no address and a Result that is not done, with
// conditions.ReasonWaitingForIPAddresses, a message naming the claims it waits for (WaitingMessage) and the poll
// interval of the reconcile (step.EnvFrom(ctx).PollInterval()) as RequeueAfter; a controller that watches
// the claims (Owns(ipam.ClaimObject())) is woken up sooner. A claim is waited for while the IPAM provider has not
// set status.addressRef (also just after clusterctl move, which drops status), while its IPAddress cannot be read
// yet, and while the claim is being deleted; it is never replaced.
//
// Addresses that cannot be used are a terminal error (step.Terminal) with conditions.ReasonInvalidIPAddress,
// wrapping ErrInvalid or ErrConflict: bad requests (at most MaxRequests, devices DNS labels of at most
// MaxDeviceLength characters, valid pools, no device asking a pool twice, checked first), an owner without a
// UID, a bad cluster name, and an IPAddress that is malformed (an address, prefix or gateway that does not parse
// or is out of bounds) or that the claim's address cannot be (another claim's or another pool's). A claim of
// that name that owner does not control, or that asks another pool, is an error wrapping ErrConflict that is
// retried with backoff (the other object may go), like the API server's errors. Claim never updates or deletes
// a claim.
func (c *Claimer) Claim(ctx context.Context, obj client.Object, cluster string, reqs []Request) ([]Address, step.Result, error) {
	addrs, waiting, err := c.claim(ctx, obj, cluster, reqs)
	switch {
	case err != nil:
		var bad *addressError
		if errors.Is(err, ErrInvalid) || errors.As(err, &bad) {
			return nil, step.Result{}, step.Terminal(conditions.ReasonInvalidIPAddress, err)
		}
		return nil, step.Result{}, err
	case len(waiting) > 0:
		return nil, step.Result{Reason: conditions.ReasonWaitingForIPAddresses, Message: WaitingMessage(waiting),
			RequeueAfter: step.EnvFrom(ctx).PollInterval()}, nil
	}
	return addrs, step.Result{Done: true}, nil
}

// claim is the work of Claim (and of the deprecated Ensure): the addresses in request order once every claim
// has one, else the names of the claims it waits for, in request order. Its errors are not classified.
func (c *Claimer) claim(ctx context.Context, obj client.Object, cluster string, reqs []Request) (addrs []Address, waiting []string, err error) {
	o, err := c.ownerOf(obj)
	if err != nil {
		return nil, nil, err
	}
	if o.uid == "" {
		return nil, nil, fmt.Errorf("cannot claim IP addresses for %s: it has no UID (not created yet?): %w", o, ErrInvalid)
	}
	if err := checkCluster(cluster); err != nil {
		return nil, nil, err
	}
	names, err := claimNames(o.name, reqs)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot claim IP addresses for %s: %w", o, err)
	}
	addrs = make([]Address, 0, len(reqs))
	for i, r := range reqs {
		claim, err := c.ensureClaim(ctx, o, cluster, names[i], r.Pool)
		if err != nil {
			return nil, nil, err
		}
		addr, ok, err := c.addressOf(ctx, claim, r)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			waiting = append(waiting, names[i])
			continue
		}
		addrs = append(addrs, addr)
	}
	if len(waiting) > 0 {
		return nil, waiting, nil
	}
	return addrs, nil, nil
}

// ensureClaim returns owner's claim name for pool, created if missing; nil when it exists but cannot be read
// yet (a lagging cache).
func (c *Claimer) ensureClaim(ctx context.Context, o owner, cluster, name string, pool PoolRef) (*unstructured.Unstructured, error) {
	key := client.ObjectKey{Namespace: o.namespace, Name: name}
	claim := ClaimObject()
	err := c.reader.Get(ctx, key, claim)
	if apierrors.IsNotFound(err) {
		claim = newClaim(o, cluster, name, pool)
		err = c.client.Create(ctx, claim)
		if apierrors.IsAlreadyExists(err) {
			claim = ClaimObject()
			if err = c.reader.Get(ctx, key, claim); apierrors.IsNotFound(err) {
				return nil, nil
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot ensure IPAddressClaim %q: %w", key, err)
	}
	return claim, checkClaim(claim, o, pool)
}

// newClaim returns the claim of owner o for pool.
func newClaim(o owner, cluster, name string, pool PoolRef) *unstructured.Unstructured {
	claim := ClaimObject()
	claim.SetNamespace(o.namespace)
	claim.SetName(name)
	claim.SetLabels(map[string]string{contract.ClusterNameLabel: cluster, OwnerLabel: ownerLabelValue(o.name)})
	claim.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion:         o.gvk.GroupVersion().String(),
		Kind:               o.gvk.Kind,
		Name:               o.name,
		UID:                o.uid,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}})
	claim.Object["spec"] = map[string]any{
		"clusterName": cluster,
		"poolRef":     map[string]any{"apiGroup": pool.APIGroup, "kind": pool.Kind, "name": pool.Name},
	}
	return claim
}

// checkClaim refuses a claim that o does not control or that asks another pool than pool.
func checkClaim(claim *unstructured.Unstructured, o owner, pool PoolRef) error {
	key := client.ObjectKeyFromObject(claim)
	if !o.controls(claim) {
		by := "no controller"
		if ref := metav1.GetControllerOfNoCopy(claim); ref != nil {
			by = fmt.Sprintf("controller %s %q (%s)", ref.Kind, ref.Name, ref.APIVersion)
		}
		return fmt.Errorf("cannot use IPAddressClaim %q for %s: it has %s: %w", key, o, by, ErrConflict)
	}
	if got := poolOf(claim.Object, "spec", "poolRef"); got != pool {
		return fmt.Errorf("cannot use IPAddressClaim %q for %s: it asks pool %s, not %s: %w", key, o, got, pool, ErrConflict)
	}
	return nil
}

// poolOf reads a pool reference at path of obj; missing fields are empty.
func poolOf(obj map[string]any, path ...string) PoolRef {
	get := func(field string) string {
		s, _, _ := unstructured.NestedString(obj, append(slices.Clone(path), field)...)
		return s
	}
	return PoolRef{APIGroup: get("apiGroup"), Kind: get("kind"), Name: get("name")}
}
