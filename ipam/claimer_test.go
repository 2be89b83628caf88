package ipam_test

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
)

// A machine with two devices and three pools: one claim per request, waited for, then the addresses in request
// order; Claim is idempotent.
func TestClaimMultiDeviceMultiPool(t *testing.T) {
	ctx := t.Context()
	m := machine("m1", "uid-1")
	cl, c := newClaimer(t, m)
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}, {Device: "eth0", Pool: v6}, {Device: "eth1", Pool: storage}}

	addrs, res, err := cl.Claim(ctx, m, "c1", reqs)
	require.NoError(t, err)
	assert.Nil(t, addrs)
	assert.Equal(t, waiting("waiting for IP addresses of claims m1-eth0-0, m1-eth0-1, m1-eth1-0"), res)

	got := getClaim(t, c, "m1-eth0-1")
	require.NotNil(t, got)
	assert.Equal(t, "ipam.cluster.x-k8s.io/v1beta2", got.GetAPIVersion())
	assert.Equal(t, "IPAddressClaim", got.GetKind())
	assert.Equal(t, map[string]any{"clusterName": "c1",
		"poolRef": map[string]any{"apiGroup": "ipam.cluster.x-k8s.io", "kind": "InClusterIPPool", "name": "nodes-v6"}}, got.Object["spec"])
	assert.Equal(t, map[string]string{"cluster.x-k8s.io/cluster-name": "c1", "ipam.capkit.io/owner": "m1"}, got.GetLabels())
	assert.Equal(t, []metav1.OwnerReference{controllerRef("m1", "uid-1")}, got.GetOwnerReferences())

	allocate(t, c, "m1-eth0-0", address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "10.0.0.1"))
	addrs, res, err = cl.Claim(ctx, m, "c1", reqs)
	require.NoError(t, err)
	assert.Nil(t, addrs)
	assert.Equal(t, waiting("waiting for IP addresses of claims m1-eth0-1, m1-eth1-0"), res)

	allocate(t, c, "m1-eth0-1", address("m1-eth0-1", v6, "fd00::a", int64(64), ""))
	allocate(t, c, "m1-eth1-0", address("m1-eth1-0", storage, "192.168.7.3", int64(16), ""))
	for range 2 {
		addrs, res, err = cl.Claim(ctx, m, "c1", reqs)
		require.NoError(t, err)
		assert.Equal(t, step.Result{Done: true}, res)
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

// Claim's Result while it waits names the claims (at most five) and asks to look again after the poll interval
// of the reconcile in ctx, DefaultRequeueAfter outside one.
func TestClaimWaitingResult(t *testing.T) {
	m := machine("m1", "uid-1")
	one := []ipam.Request{{Device: "eth0", Pool: nodes}}
	var seven []ipam.Request
	for i := range 7 {
		seven = append(seven, ipam.Request{Device: fmt.Sprintf("eth%d", i), Pool: nodes})
	}
	tests := []struct {
		name string
		env  *step.Env
		reqs []ipam.Request
		want step.Result
	}{
		{name: "outside a reconcile", reqs: one,
			want: step.Result{Reason: conditions.ReasonWaitingForIPAddresses, Message: "waiting for the IP address of claim m1-eth0-0",
				RequeueAfter: step.DefaultPollInterval}},
		{name: "the reconcile's poll interval", env: reconcile.NewEnv(m, reconcile.WithPollInterval(3*time.Second)), reqs: one,
			want: step.Result{Reason: conditions.ReasonWaitingForIPAddresses, Message: "waiting for the IP address of claim m1-eth0-0",
				RequeueAfter: 3 * time.Second}},
		{name: "seven claims", reqs: seven,
			want: step.Result{Reason: conditions.ReasonWaitingForIPAddresses,
				Message:      "waiting for IP addresses of claims m1-eth0-0, m1-eth1-0, m1-eth2-0, m1-eth3-0, m1-eth4-0 and 2 more",
				RequeueAfter: step.DefaultPollInterval}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.env != nil {
				ctx = step.ContextWithEnv(ctx, tt.env)
			}
			cl, _ := newClaimer(t, m)
			addrs, res, err := cl.Claim(ctx, m, "c1", tt.reqs)
			require.NoError(t, err)
			assert.Nil(t, addrs)
			assert.Equal(t, tt.want, res)
			assert.Equal(t, reconcile.ClassInProgress, reconcile.Classify(reconcile.OpReconcile, res, err).Class)
		})
	}
}

// A claim under the expected name is used only when the owner controls it (by group, kind and name) and it asks
// the request's pool; another object's claim is an ErrConflict retried with backoff, never terminal (the other
// object may go).
func TestClaimOwnership(t *testing.T) {
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
			addrs, res, err := cl.Claim(ctx, m, "c1", []ipam.Request{{Device: "eth0", Pool: nodes}})
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ipam.ErrConflict)
				assert.ErrorContains(t, err, tt.wantErr)
				assert.False(t, step.IsTerminal(err), "retried with backoff")
				assert.Equal(t, reconcile.ClassTransient, reconcile.Classify(reconcile.OpReconcile, res, err).Class)
				assert.Nil(t, addrs)
			} else {
				require.NoError(t, err)
				assert.True(t, res.Done)
				require.Len(t, addrs, 1)
				assert.Equal(t, "10.0.0.10", addrs[0].Address.String())
			}
			assert.Equal(t, before, getClaim(t, c, "m1-eth0-0"), "the claim is never changed")
		})
	}
}

// An IPAddress is used only when it is the claim's, with values in bounds; one that cannot be used is a terminal
// error with ReasonInvalidIPAddress (its spec is immutable: retrying does not help).
func TestClaimAddress(t *testing.T) {
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
			addrs, res, err := cl.Claim(t.Context(), m, "c1", []ipam.Request{{Device: "eth0", Pool: tt.pool}})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.ErrorContains(t, err, tt.errText)
				assert.True(t, step.IsTerminal(err))
				assert.Equal(t, conditions.ReasonInvalidIPAddress, step.TerminalReason(err))
				assert.Nil(t, addrs)
				assert.Equal(t, step.Result{}, res)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, step.Result{Done: true}, res)
			tt.want.Device, tt.want.Pool, tt.want.Claim = "eth0", tt.pool, "m1-eth0-0"
			assert.Equal(t, []ipam.Address{tt.want}, addrs)
		})
	}
}

// Claim waits, and never replaces the claim, while the claim has no addressRef (after clusterctl move), while
// its IPAddress is not there, and while the claim is being deleted.
func TestClaimWaits(t *testing.T) {
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
			addrs, res, err := cl.Claim(t.Context(), m, "c1", reqs)
			require.NoError(t, err)
			assert.Nil(t, addrs)
			assert.Equal(t, waiting("waiting for the IP address of claim m1-eth0-0"), res)
			assert.Equal(t, before, getClaim(t, c, "m1-eth0-0"))
		})
	}
}

// Bad input is a terminal error with ReasonInvalidIPAddress, and nothing is created; an owner whose kind the
// client's scheme does not know is an error retried with backoff.
func TestClaimInputs(t *testing.T) {
	m := machine("m1", "uid-1")
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}}
	noNamespace := machine("m1", "uid-1")
	noNamespace.Namespace = ""
	tests := []struct {
		name     string
		owner    client.Object
		cluster  string
		reqs     []ipam.Request
		errText  string
		terminal bool
	}{
		{name: "a device that is not a DNS label", owner: m, cluster: "c1", reqs: []ipam.Request{{Device: "eth_0", Pool: nodes}}, terminal: true,
			errText: `cannot claim IP addresses for FooMachine "ns/m1": cannot use requests[0]: device "eth_0" is not a DNS label`},
		{name: "too many requests", owner: m, cluster: "c1", reqs: make([]ipam.Request, 17), terminal: true,
			errText: `cannot claim IP addresses for FooMachine "ns/m1": cannot use 17 requests: more than 16: invalid`},
		{name: "no cluster name", owner: m, reqs: reqs, terminal: true,
			errText: `cannot use cluster name "": not a DNS subdomain of at most 63 characters: invalid`},
		{name: "an owner without UID", owner: machine("m1", ""), cluster: "c1", reqs: reqs, terminal: true,
			errText: `cannot claim IP addresses for FooMachine "ns/m1": it has no UID`},
		{name: "no owner", cluster: "c1", reqs: reqs, terminal: true, errText: `cannot use owner: nil object: invalid`},
		{name: "an owner without namespace", owner: noNamespace, cluster: "c1", reqs: reqs, terminal: true,
			errText: `cannot use owner FooMachine "/m1": a namespaced object with a name and a kind is needed`},
		{name: "an owner of an unknown kind", cluster: "c1", reqs: reqs, errText: `cannot find the kind of owner "x"`,
			owner: &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x", "namespace": ns, "uid": "u"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, c := newClaimer(t, m)
			addrs, res, err := cl.Claim(t.Context(), tt.owner, tt.cluster, tt.reqs)
			require.ErrorContains(t, err, tt.errText)
			assert.Nil(t, addrs)
			assert.Equal(t, step.Result{}, res)
			assert.Equal(t, tt.terminal, step.IsTerminal(err))
			if tt.terminal {
				assert.ErrorIs(t, err, ipam.ErrInvalid)
				assert.Equal(t, conditions.ReasonInvalidIPAddress, step.TerminalReason(err))
			}
			assert.Nil(t, getClaim(t, c, "m1-eth0-0"), "nothing created on bad input")
		})
	}
}

func TestNewClaimer(t *testing.T) {
	_, err := ipam.NewClaimer(nil)
	assert.EqualError(t, err, "cannot create IPAM claimer: client is nil")
	_, c := newClaimer(t)
	_, err = ipam.NewClaimer(c, ipam.WithReader(nil))
	assert.EqualError(t, err, "cannot create IPAM claimer: reader is nil")
}

// waiting is Claim's Result while it waits, outside a reconcile.
func waiting(message string) step.Result {
	return step.Result{Reason: conditions.ReasonWaitingForIPAddresses, Message: message, RequeueAfter: step.DefaultPollInterval}
}
