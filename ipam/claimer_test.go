package ipam_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/ipam"
)

// A machine with two devices and three pools: one claim per request, waited for, then the addresses in request
// order; Ensure is idempotent.
func TestEnsureMultiDeviceMultiPool(t *testing.T) {
	ctx := t.Context()
	m := machine("m1", "uid-1")
	cl, c := newClaimer(t, m)
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}, {Device: "eth0", Pool: v6}, {Device: "eth1", Pool: storage}}

	addrs, waiting, err := cl.Ensure(ctx, m, "c1", reqs)
	require.NoError(t, err)
	assert.Nil(t, addrs)
	assert.Equal(t, []string{"m1-eth0-0", "m1-eth0-1", "m1-eth1-0"}, waiting)

	got := getClaim(t, c, "m1-eth0-1")
	require.NotNil(t, got)
	assert.Equal(t, "ipam.cluster.x-k8s.io/v1beta2", got.GetAPIVersion())
	assert.Equal(t, "IPAddressClaim", got.GetKind())
	assert.Equal(t, map[string]any{"clusterName": "c1",
		"poolRef": map[string]any{"apiGroup": "ipam.cluster.x-k8s.io", "kind": "InClusterIPPool", "name": "nodes-v6"}}, got.Object["spec"])
	assert.Equal(t, map[string]string{"cluster.x-k8s.io/cluster-name": "c1", "ipam.capkit.io/owner": "m1"}, got.GetLabels())
	assert.Equal(t, []metav1.OwnerReference{controllerRef("m1", "uid-1")}, got.GetOwnerReferences())

	allocate(t, c, "m1-eth0-0", address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "10.0.0.1"))
	addrs, waiting, err = cl.Ensure(ctx, m, "c1", reqs)
	require.NoError(t, err)
	assert.Nil(t, addrs)
	assert.Equal(t, []string{"m1-eth0-1", "m1-eth1-0"}, waiting)
	assert.Equal(t, "waiting for IP addresses of claims m1-eth0-1, m1-eth1-0", ipam.WaitingMessage(waiting))

	allocate(t, c, "m1-eth0-1", address("m1-eth0-1", v6, "fd00::a", int64(64), ""))
	allocate(t, c, "m1-eth1-0", address("m1-eth1-0", storage, "192.168.7.3", int64(16), ""))
	for range 2 {
		addrs, waiting, err = cl.Ensure(ctx, m, "c1", reqs)
		require.NoError(t, err)
		assert.Empty(t, waiting)
		assert.Equal(t, []ipam.Address{
			{Device: "eth0", Pool: nodes, Claim: "m1-eth0-0", Address: netip.MustParseAddr("10.0.0.10"), Prefix: 24, Gateway: netip.MustParseAddr("10.0.0.1")},
			{Device: "eth0", Pool: v6, Claim: "m1-eth0-1", Address: netip.MustParseAddr("fd00::a"), Prefix: 64},
			{Device: "eth1", Pool: storage, Claim: "m1-eth1-0", Address: netip.MustParseAddr("192.168.7.3"), Prefix: 16},
		}, addrs)
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(ipam.ClaimGVK.GroupVersion().WithKind("IPAddressClaimList"))
	require.NoError(t, c.List(ctx, list))
	assert.Len(t, list.Items, 3)
	assert.Equal(t, "10.0.0.10/24", addrs[0].Prefixed().String())
}

// A claim under the expected name is used only when the owner controls it (by group, kind and name) and it asks
// the request's pool.
func TestEnsureOwnership(t *testing.T) {
	m := machine("m1", "uid-new")
	other := metav1.OwnerReference{APIVersion: "infrastructure.capkit.io/v1alpha1", Kind: "FooMachine", Name: "m1-eth0", UID: "uid-x", Controller: ptr.To(true)}
	tests := []struct {
		name     string
		existing *unstructured.Unstructured
		wantErr  string // "" when the claim is used
	}{
		{name: "same owner after move: new UID, same group, kind and name", existing: claim("m1-eth0-0", nodes, controllerRef("m1", "uid-old"))},
		{name: "same owner at an older API version", existing: claim("m1-eth0-0", nodes, func() metav1.OwnerReference {
			r := controllerRef("m1", "uid-old")
			r.APIVersion = "infrastructure.capkit.io/v1alpha0"
			return r
		}())},
		{name: "another machine's claim (names collide)", existing: claim("m1-eth0-0", nodes, other),
			wantErr: `cannot use IPAddressClaim "ns/m1-eth0-0" for FooMachine "ns/m1": it has controller FooMachine "m1-eth0" (infrastructure.capkit.io/v1alpha1): conflict`},
		{name: "no controller", existing: claim("m1-eth0-0", nodes, func() metav1.OwnerReference {
			r := controllerRef("m1", "uid-new")
			r.Controller = nil
			return r
		}()), wantErr: `cannot use IPAddressClaim "ns/m1-eth0-0" for FooMachine "ns/m1": it has no controller: conflict`},
		{name: "same name and kind in another group", existing: claim("m1-eth0-0", nodes, func() metav1.OwnerReference {
			r := controllerRef("m1", "uid-new")
			r.APIVersion = "infrastructure.example.com/v1alpha1"
			return r
		}()), wantErr: `it has controller FooMachine "m1" (infrastructure.example.com/v1alpha1): conflict`},
		{name: "another pool", existing: claim("m1-eth0-0", storage, controllerRef("m1", "uid-new")),
			wantErr: `cannot use IPAddressClaim "ns/m1-eth0-0" for FooMachine "ns/m1": it asks pool InClusterIPPool.ipam.cluster.x-k8s.io/storage, not InClusterIPPool.ipam.cluster.x-k8s.io/nodes: conflict`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			cl, c := newClaimer(t, m, withAddressRef(tt.existing, "m1-eth0-0"), address("m1-eth0-0", nodes, "10.0.0.10", int64(24), ""))
			before := getClaim(t, c, "m1-eth0-0")
			addrs, waiting, err := cl.Ensure(ctx, m, "c1", []ipam.Request{{Device: "eth0", Pool: nodes}})
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ipam.ErrConflict)
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Nil(t, addrs)
			} else {
				require.NoError(t, err)
				assert.Empty(t, waiting)
				require.Len(t, addrs, 1)
				assert.Equal(t, "10.0.0.10", addrs[0].Address.String())
			}
			assert.Equal(t, before, getClaim(t, c, "m1-eth0-0"), "the claim is never changed")
		})
	}
}

// An IPAddress is used only when it is the claim's, with values in bounds.
func TestEnsureAddress(t *testing.T) {
	m := machine("m1", "uid-1")
	owned := func(pool ipam.PoolRef) *unstructured.Unstructured {
		return withAddressRef(claim("m1-eth0-0", pool, controllerRef("m1", "uid-1")), "m1-eth0-0")
	}
	tests := []struct {
		name    string
		pool    ipam.PoolRef
		ip      *unstructured.Unstructured
		want    ipam.Address
		wantErr error
		errText string
	}{
		{name: "IPv4 with gateway", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "10.0.0.1"),
			want: ipam.Address{Address: netip.MustParseAddr("10.0.0.10"), Prefix: 24, Gateway: netip.MustParseAddr("10.0.0.1")}},
		{name: "IPv6 with gateway", pool: v6, ip: address("m1-eth0-0", v6, "2001:db8::10", int64(64), "2001:db8::1"),
			want: ipam.Address{Address: netip.MustParseAddr("2001:db8::10"), Prefix: 64, Gateway: netip.MustParseAddr("2001:db8::1")}},
		{name: "host route", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", int64(32), ""),
			want: ipam.Address{Address: netip.MustParseAddr("10.0.0.10"), Prefix: 32}},
		{name: "prefix as a float", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", float64(8), ""),
			want: ipam.Address{Address: netip.MustParseAddr("10.0.0.10"), Prefix: 8}},
		{name: "IPv4 prefix beyond 32", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", int64(33), ""),
			wantErr: ipam.ErrInvalid, errText: `cannot use IPAddress "ns/m1-eth0-0" of IPAddressClaim "m1-eth0-0": spec.prefix 33 is not in 0..32: invalid`},
		{name: "IPv6 prefix beyond 128", pool: v6, ip: address("m1-eth0-0", v6, "fd00::1", int64(129), ""),
			wantErr: ipam.ErrInvalid, errText: `spec.prefix 129 is not in 0..128`},
		{name: "negative prefix", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", int64(-1), ""),
			wantErr: ipam.ErrInvalid, errText: `spec.prefix -1 is not in 0..32`},
		{name: "no prefix", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", nil, ""),
			wantErr: ipam.ErrInvalid, errText: `spec.prefix: missing`},
		{name: "prefix not an integer", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", "24", ""),
			wantErr: ipam.ErrInvalid, errText: `spec.prefix: 24 is not an integer`},
		{name: "bad address", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.300", int64(24), ""),
			wantErr: ipam.ErrInvalid, errText: `spec.address "10.0.0.300": not an IP address`},
		{name: "address with a CIDR", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10/24", int64(24), ""),
			wantErr: ipam.ErrInvalid, errText: `spec.address "10.0.0.10/24": not an IP address`},
		{name: "address with a zone", pool: v6, ip: address("m1-eth0-0", v6, "fe80::1%eth0", int64(64), ""),
			wantErr: ipam.ErrInvalid, errText: `spec.address "fe80::1%eth0": an IP address with a zone`},
		{name: "IPv6 gateway for an IPv4 address", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "fd00::1"),
			wantErr: ipam.ErrInvalid, errText: `spec.gateway "fd00::1" is not of the family of spec.address "10.0.0.10"`},
		{name: "IPv4 gateway for an IPv6 address", pool: v6, ip: address("m1-eth0-0", v6, "fd00::10", int64(64), "10.0.0.1"),
			wantErr: ipam.ErrInvalid, errText: `spec.gateway "10.0.0.1" is not of the family of spec.address "fd00::10"`},
		{name: "bad gateway", pool: nodes, ip: address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "gw"),
			wantErr: ipam.ErrInvalid, errText: `spec.gateway "gw": not an IP address`},
		{name: "another claim's address", pool: nodes, ip: func() *unstructured.Unstructured {
			a := address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "")
			a.Object["spec"].(map[string]any)["claimRef"] = map[string]any{"name": "m2-eth0-0"}
			return a
		}(), wantErr: ipam.ErrConflict, errText: `spec.claimRef.name is "m2-eth0-0"`},
		{name: "another pool's address", pool: nodes, ip: address("m1-eth0-0", storage, "10.0.0.10", int64(24), ""),
			wantErr: ipam.ErrConflict, errText: `spec.poolRef is InClusterIPPool.ipam.cluster.x-k8s.io/storage, not InClusterIPPool.ipam.cluster.x-k8s.io/nodes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, _ := newClaimer(t, m, owned(tt.pool), tt.ip)
			addrs, waiting, err := cl.Ensure(t.Context(), m, "c1", []ipam.Request{{Device: "eth0", Pool: tt.pool}})
			assert.Empty(t, waiting)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.ErrorContains(t, err, tt.errText)
				return
			}
			require.NoError(t, err)
			tt.want.Device, tt.want.Pool, tt.want.Claim = "eth0", tt.pool, "m1-eth0-0"
			assert.Equal(t, []ipam.Address{tt.want}, addrs)
		})
	}
}

// Ensure waits, and never replaces the claim, while the claim has no addressRef (after clusterctl move), while
// its IPAddress is not there, and while the claim is being deleted.
func TestEnsureWaits(t *testing.T) {
	m := machine("m1", "uid-1")
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}}
	deleting := withAddressRef(claim("m1-eth0-0", nodes, controllerRef("m1", "uid-1")), "m1-eth0-0")
	deleting.SetFinalizers([]string{"ipam.cluster.x-k8s.io/ReleaseAddress"})
	deleting.SetDeletionTimestamp(ptr.To(metav1.Now()))
	tests := []struct {
		name string
		objs []client.Object
	}{
		{name: "no addressRef after move (old owner UID)", objs: []client.Object{claim("m1-eth0-0", nodes, controllerRef("m1", "uid-before-move")),
			address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "")}},
		{name: "addressRef to a missing IPAddress", objs: []client.Object{withAddressRef(claim("m1-eth0-0", nodes, controllerRef("m1", "uid-1")), "m1-eth0-0")}},
		{name: "claim being deleted", objs: []client.Object{deleting, address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, c := newClaimer(t, append(tt.objs, m)...)
			before := getClaim(t, c, "m1-eth0-0")
			addrs, waiting, err := cl.Ensure(t.Context(), m, "c1", reqs)
			require.NoError(t, err)
			assert.Nil(t, addrs)
			assert.Equal(t, []string{"m1-eth0-0"}, waiting)
			assert.Equal(t, before, getClaim(t, c, "m1-eth0-0"))
		})
	}
}

func TestEnsureInputs(t *testing.T) {
	ctx := t.Context()
	m := machine("m1", "uid-1")
	cl, c := newClaimer(t, m)
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}}

	_, _, err := cl.Ensure(ctx, m, "c1", []ipam.Request{{Device: "eth_0", Pool: nodes}})
	assert.ErrorIs(t, err, ipam.ErrInvalid)
	assert.ErrorContains(t, err, `cannot claim IP addresses for FooMachine "ns/m1": cannot use requests[0]: device "eth_0" is not a DNS label`)
	_, _, err = cl.Ensure(ctx, m, "", reqs)
	assert.ErrorContains(t, err, `cannot use cluster name "": not a DNS subdomain of at most 63 characters: invalid`)
	_, _, err = cl.Ensure(ctx, machine("m1", ""), "c1", reqs)
	assert.ErrorContains(t, err, `cannot claim IP addresses for FooMachine "ns/m1": it has no UID`)
	_, _, err = cl.Ensure(ctx, nil, "c1", reqs)
	assert.ErrorIs(t, err, ipam.ErrInvalid)
	noNamespace := machine("m1", "uid-1")
	noNamespace.Namespace = ""
	_, _, err = cl.Ensure(ctx, noNamespace, "c1", reqs)
	assert.ErrorContains(t, err, `cannot use owner FooMachine "/m1": a namespaced object with a name and a kind is needed`)
	assert.Nil(t, getClaim(t, c, "m1-eth0-0"), "nothing created on bad input")

	_, _, err = cl.Ensure(ctx, &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x", "namespace": ns, "uid": "u"}}}, "c1", reqs)
	assert.ErrorContains(t, err, `cannot find the kind of owner "x"`)

	_, err = ipam.NewClaimer(nil)
	assert.EqualError(t, err, "cannot create IPAM claimer: client is nil")
	_, err = ipam.NewClaimer(c, ipam.WithReader(nil))
	assert.EqualError(t, err, "cannot create IPAM claimer: reader is nil")
}
