package ipam_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/ipam"
)

const ns = "ns"

var (
	nodes   = ipam.PoolRef{APIGroup: ipam.Group, Kind: "InClusterIPPool", Name: "nodes"}
	storage = ipam.PoolRef{APIGroup: ipam.Group, Kind: "InClusterIPPool", Name: "storage"}
	v6      = ipam.PoolRef{APIGroup: ipam.Group, Kind: "InClusterIPPool", Name: "nodes-v6"}
)

// machine returns an InfraMachine named name with uid, the owner of claims.
func machine(name string, uid types.UID) *testtypes.FooMachine {
	return &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid}}
}

// controllerRef is the owner reference a Claimer puts on the claims of a FooMachine.
func controllerRef(name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: testtypes.GroupVersion.String(), Kind: "FooMachine", Name: name, UID: uid,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}

// claim returns a claim as another tool or an earlier Claimer may have left it.
func claim(name string, pool ipam.PoolRef, refs ...metav1.OwnerReference) *unstructured.Unstructured {
	c := ipam.ClaimObject()
	c.SetNamespace(ns)
	c.SetName(name)
	c.SetOwnerReferences(refs)
	c.Object["spec"] = map[string]any{"clusterName": "c1", "poolRef": map[string]any{"apiGroup": pool.APIGroup, "kind": pool.Kind, "name": pool.Name}}
	return c
}

// withAddressRef sets status.addressRef.name of claim c.
func withAddressRef(c *unstructured.Unstructured, name string) *unstructured.Unstructured {
	c.Object["status"] = map[string]any{"addressRef": map[string]any{"name": name}}
	return c
}

// address returns the IPAddress the IPAM provider creates for the claim name; a nil prefix is left out.
func address(name string, pool ipam.PoolRef, addr string, prefix any, gateway string) *unstructured.Unstructured {
	a := &unstructured.Unstructured{}
	a.SetGroupVersionKind(ipam.AddressGVK)
	a.SetNamespace(ns)
	a.SetName(name)
	spec := map[string]any{"claimRef": map[string]any{"name": name}, "address": addr,
		"poolRef": map[string]any{"apiGroup": pool.APIGroup, "kind": pool.Kind, "name": pool.Name}}
	if prefix != nil {
		spec["prefix"] = prefix
	}
	if gateway != "" {
		spec["gateway"] = gateway
	}
	a.Object["spec"] = spec
	return a
}

// newClaimer returns a Claimer on a fake client holding objs.
func newClaimer(t *testing.T, objs ...client.Object) (*ipam.Claimer, client.Client) {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(testtypes.Scheme()).WithObjects(objs...).Build()
	cl, err := ipam.NewClaimer(c)
	require.NoError(t, err)
	return cl, c
}

// allocate plays the IPAM provider for the claim name: it creates addr and sets the claim's addressRef.
func allocate(t *testing.T, c client.Client, name string, addr *unstructured.Unstructured) {
	t.Helper()
	ctx := t.Context()
	require.NoError(t, c.Create(ctx, addr))
	got := ipam.ClaimObject()
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, got))
	require.NoError(t, c.Update(ctx, withAddressRef(got, addr.GetName())))
}

// getClaim returns the claim name, or nil when there is none.
func getClaim(t *testing.T, c client.Client, name string) *unstructured.Unstructured {
	t.Helper()
	got := ipam.ClaimObject()
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, got); err != nil {
		require.True(t, client.IgnoreNotFound(err) == nil, "%v", err)
		return nil
	}
	return got
}
