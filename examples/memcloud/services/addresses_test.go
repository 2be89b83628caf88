package services_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// countingClaimer counts the calls of an AddressClaimer.
type countingClaimer struct {
	services.AddressClaimer
	claims, unclaims int
}

func (c *countingClaimer) Claim(ctx context.Context, owner client.Object, cluster string, reqs []ipam.Request) ([]ipam.Address, step.Result, error) {
	c.claims++
	return c.AddressClaimer.Claim(ctx, owner, cluster, reqs)
}

func (c *countingClaimer) Unclaim(ctx context.Context, owner client.Object, reqs []ipam.Request) (step.Result, error) {
	c.unclaims++
	return c.AddressClaimer.Unclaim(ctx, owner, reqs)
}

// ipamEnv is a machineEnv whose instance service claims addresses through an ipam.Claimer on a fake client,
// where the test plays the IPAM provider.
type ipamEnv struct {
	*machineEnv
	client  client.Client
	claimer *countingClaimer
}

func newIPAMEnv(t *testing.T, opts ...cloud.Option) *ipamEnv {
	t.Helper()
	e := newMachineEnv(t, opts...)
	sch := runtime.NewScheme()
	require.NoError(t, v1beta2.AddToScheme(sch))
	c := fake.NewClientBuilder().WithScheme(sch).Build()
	claimer, err := ipam.NewClaimer(c)
	require.NoError(t, err)
	counting := &countingClaimer{AddressClaimer: claimer}
	e.instance, err = services.NewInstance(e.cloud, lookupOf(e), services.WithAddressClaimer(counting))
	require.NoError(t, err)
	return &ipamEnv{machineEnv: e, client: c, claimer: counting}
}

// lookupOf returns the network lookup of e's cluster.
func lookupOf(e *machineEnv) services.NetworkLookup {
	return services.NetworkLookupFunc(func(context.Context, string, scope.ClusterInfo) (services.ClusterNetwork, error) {
		return services.ClusterNetwork{
			SubnetIDs: map[v1beta2.SubnetRole]string{
				v1beta2.SubnetRoleControlPlane: e.ids[services.SubnetKey("controlplane")],
				v1beta2.SubnetRoleWorker:       e.ids[services.SubnetKey("worker")],
			},
			SecurityGroupID: e.ids[services.KeySecurityGroup], LoadBalancerID: e.ids[services.KeyLoadBalancer],
		}, nil
	})
}

var (
	poolA = v1beta2.IPPoolRef{APIGroup: ipam.Group, Kind: "InClusterIPPool", Name: "pool-a"}
	poolB = v1beta2.IPPoolRef{APIGroup: ipam.Group, Kind: "InClusterIPPool", Name: "pool-b"}
)

// ipamMachine returns the fake scope of worker MemMachine name with pools and a UID.
func ipamMachine(name string, pools ...v1beta2.IPPoolRef) machineFake {
	s := machineScope(name, false, []byte(userData))
	s.Object.UID = types.UID("uid-" + name)
	s.Object.Spec.AddressesFromPools = pools
	return s
}

// claim returns the IPAddressClaim name in namespace "ns", and whether it exists.
func (e *ipamEnv) claim(t *testing.T, name string) (*unstructured.Unstructured, bool) {
	t.Helper()
	u := ipam.ClaimObject()
	err := e.client.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: name}, u)
	if client.IgnoreNotFound(err) != nil {
		require.NoError(t, err)
	}
	return u, err == nil
}

// bind plays the IPAM provider: it creates the IPAddress of claim name with address/prefix and sets the
// claim's status.addressRef.
func (e *ipamEnv) bind(t *testing.T, name string, pool v1beta2.IPPoolRef, address string) {
	t.Helper()
	ctx := t.Context()
	ip := &unstructured.Unstructured{}
	ip.SetGroupVersionKind(ipam.AddressGVK)
	ip.SetNamespace("ns")
	ip.SetName(name)
	ip.Object["spec"] = map[string]any{
		"claimRef": map[string]any{"name": name},
		"poolRef":  map[string]any{"apiGroup": pool.APIGroup, "kind": pool.Kind, "name": pool.Name},
		"address":  address, "prefix": int64(24), "gateway": "192.168.10.1",
	}
	require.NoError(t, e.client.Create(ctx, ip))
	claim, ok := e.claim(t, name)
	require.True(t, ok, "claim %s exists", name)
	require.NoError(t, unstructured.SetNestedField(claim.Object, name, "status", "addressRef", "name"))
	require.NoError(t, e.client.Update(ctx, claim))
}

func TestInstanceWithoutPoolsClaimsNothing(t *testing.T) {
	ctx := withPoll(t.Context())
	e := newIPAMEnv(t)
	s := ipamMachine("m-0")

	res, err := e.instance.Reconcile(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	res, err = e.instance.Delete(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Zero(t, e.claimer.claims, "no pool, no claim")
	assert.Zero(t, e.claimer.unclaims, "and nothing to release")
}

func TestInstanceTakesAddressesFromPools(t *testing.T) {
	tests := []struct {
		name    string
		pools   []v1beta2.IPPoolRef
		claims  []string
		ips     []string
		message string
	}{
		{name: "one pool", pools: []v1beta2.IPPoolRef{poolA}, claims: []string{"m-0-eth0-0"}, ips: []string{"192.168.10.11"},
			message: "waiting for the IP address of claim m-0-eth0-0"},
		{name: "two pools, in order", pools: []v1beta2.IPPoolRef{poolB, poolA}, claims: []string{"m-0-eth0-0", "m-0-eth0-1"},
			ips: []string{"192.168.20.11", "192.168.10.11"}, message: "waiting for IP addresses of claims m-0-eth0-0, m-0-eth0-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := withPoll(t.Context())
			e := newIPAMEnv(t)
			s := ipamMachine("m-0", tt.pools...)
			mm := s.Object

			for range 2 {
				res, err := e.instance.Reconcile(ctx, s)
				require.NoError(t, err)
				assert.False(t, res.Done)
				assert.Equal(t, conditions.ReasonWaitingForIPAddresses, res.Reason)
				assert.Equal(t, tt.message, res.Message)
				assert.Equal(t, poll, res.RequeueAfter)
				assert.Zero(t, e.cloud.Count(cloud.KindInstance), "no instance before the addresses")
				assert.Zero(t, s.BootstrapReads)
			}
			for i, name := range tt.claims {
				claim, ok := e.claim(t, name)
				require.True(t, ok, "claim %s", name)
				assert.Equal(t, []metav1.OwnerReference{{APIVersion: v1beta2.GroupVersion.String(), Kind: "MemMachine", Name: "m-0",
					UID: "uid-m-0", Controller: new(true), BlockOwnerDeletion: new(true)}}, claim.GetOwnerReferences())
				assert.Equal(t, "c1", claim.GetLabels()[contract.ClusterNameLabel])
				assert.Equal(t, "m-0", claim.GetLabels()[ipam.OwnerLabel])
				clusterName, _, _ := unstructured.NestedString(claim.Object, "spec", "clusterName")
				assert.Equal(t, "c1", clusterName)
				pool, _, _ := unstructured.NestedStringMap(claim.Object, "spec", "poolRef")
				assert.Equal(t, map[string]string{"apiGroup": tt.pools[i].APIGroup, "kind": tt.pools[i].Kind, "name": tt.pools[i].Name}, pool)
			}

			e.bind(t, tt.claims[0], tt.pools[0], tt.ips[0])
			if len(tt.claims) > 1 {
				res, err := e.instance.Reconcile(ctx, s)
				require.NoError(t, err)
				assert.Equal(t, "waiting for the IP address of claim "+tt.claims[1], res.Message, "until every claim is bound")
				for i := 1; i < len(tt.claims); i++ {
					e.bind(t, tt.claims[i], tt.pools[i], tt.ips[i])
				}
			}
			res, err := e.instance.Reconcile(ctx, s)
			require.NoError(t, err)
			assert.True(t, res.Done)
			id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
			require.NoError(t, err)
			inst, err := e.cloud.GetInstance(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, tt.ips, inst.StaticIPs, "the instance has the addresses, in the pools' order")
			assert.NotEmpty(t, inst.PrivateIP)
			want := []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: inst.PrivateIP}}
			for _, ip := range tt.ips {
				want = append(want, contract.MachineAddress{Type: contract.MachineInternalIP, Address: ip})
			}
			want = append(want, contract.MachineAddress{Type: contract.MachineHostName, Address: "m-0"})
			assert.Equal(t, want, mm.Status.Addresses)

			claims := e.claimer.claims
			e.cloud.ResetCounters()
			res, err = e.instance.Reconcile(ctx, s)
			require.NoError(t, err)
			assert.True(t, res.Done)
			assert.Equal(t, claims, e.claimer.claims, "a provisioned machine reads no claim")
			assert.Equal(t, map[cloud.Op]int{cloud.VerbGet.On(cloud.KindInstance): 1}, e.cloud.Calls().Calls, "and changes nothing in the cloud")
			assert.Equal(t, want, mm.Status.Addresses)

			res, err = e.instance.Delete(ctx, s)
			require.NoError(t, err)
			assert.True(t, res.Done)
			assert.Zero(t, e.cloud.Count(cloud.KindInstance))
			assert.Empty(t, e.cloud.StaticIPs(), "the cloud released the addresses")
			for _, name := range tt.claims {
				_, ok := e.claim(t, name)
				assert.False(t, ok, "claim %s is released", name)
			}
		})
	}
}

func TestInstanceWaitsForItsClaimsToBeDeleted(t *testing.T) {
	ctx := withPoll(t.Context())
	e := newIPAMEnv(t)
	s := ipamMachine("m-0", poolA)
	_, err := e.instance.Reconcile(ctx, s)
	require.NoError(t, err)
	e.bind(t, "m-0-eth0-0", poolA, "192.168.10.11")
	res, err := e.instance.Reconcile(ctx, s)
	require.NoError(t, err)
	require.True(t, res.Done)

	// The IPAM provider's finalizer keeps the claim until it has released the address.
	claim, _ := e.claim(t, "m-0-eth0-0")
	claim.SetFinalizers([]string{"ipam.cluster.x-k8s.io/ReleaseAddress"})
	require.NoError(t, e.client.Update(ctx, claim))
	for range 2 {
		res, err = e.instance.Delete(ctx, s)
		require.NoError(t, err)
		assert.False(t, res.Done)
		assert.Equal(t, step.Result{Reason: conditions.ReasonReleasingIPAddresses, Message: "waiting for claim m-0-eth0-0 to be deleted",
			RequeueAfter: poll}, res)
		assert.Zero(t, e.cloud.Count(cloud.KindInstance), "the instance is deleted first")
	}
	claim, ok := e.claim(t, "m-0-eth0-0")
	require.True(t, ok)
	assert.NotNil(t, claim.GetDeletionTimestamp())
	claim.SetFinalizers(nil)
	require.NoError(t, e.client.Update(ctx, claim))
	res, err = e.instance.Delete(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
}

func TestInstanceAddressErrors(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(t *testing.T, e *ipamEnv)
		noClaimer  bool
		wantReason string // a terminal error's reason; "" for an error retried with backoff
		wantErr    error
		errText    string
	}{
		{name: "no claimer", noClaimer: true, wantReason: conditions.ReasonInvalidIPAddress,
			errText: "spec.addressesFromPools is set but the instance service has no IPAM claimer"},
		{name: "a claim of another machine", wantErr: ipam.ErrConflict, errText: `IPAddressClaim "ns/m-0-eth0-0"`,
			setup: func(t *testing.T, e *ipamEnv) {
				// Another kind controls it: the claimer never uses it.
				claim := ipam.ClaimObject()
				claim.SetNamespace("ns")
				claim.SetName("m-0-eth0-0")
				claim.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "Other", Name: "m-0", UID: "uid-other", Controller: new(true)}})
				claim.Object["spec"] = map[string]any{"poolRef": map[string]any{"apiGroup": poolA.APIGroup, "kind": poolA.Kind, "name": poolA.Name}}
				require.NoError(t, e.client.Create(t.Context(), claim))
			}},
		{name: "an IPAddress with a bad address", wantReason: conditions.ReasonInvalidIPAddress, wantErr: ipam.ErrInvalid, errText: `spec.address "192.168.10.300"`,
			setup: func(t *testing.T, e *ipamEnv) {
				_, err := e.instance.Reconcile(withPoll(t.Context()), ipamMachine("m-0", poolA))
				require.NoError(t, err)
				e.bind(t, "m-0-eth0-0", poolA, "192.168.10.300")
			}},
		{name: "an IPAddress of another pool", wantReason: conditions.ReasonInvalidIPAddress, wantErr: ipam.ErrConflict, errText: `spec.poolRef is InClusterIPPool.ipam.cluster.x-k8s.io/pool-b`,
			setup: func(t *testing.T, e *ipamEnv) {
				_, err := e.instance.Reconcile(withPoll(t.Context()), ipamMachine("m-0", poolA))
				require.NoError(t, err)
				e.bind(t, "m-0-eth0-0", poolB, "192.168.10.11")
			}},
		{name: "an address another instance has", wantErr: cloud.ErrAddressInUse, errText: `"192.168.10.11" is attached to another instance`,
			setup: func(t *testing.T, e *ipamEnv) {
				_, err := e.cloud.CreateInstance(t.Context(), cloud.InstanceSpec{Name: "intruder", SubnetID: e.ids[services.SubnetKey("worker")],
					Image: "img", Flavor: "small", StaticIPs: []string{"192.168.10.11"}})
				require.NoError(t, err)
				_, err = e.instance.Reconcile(withPoll(t.Context()), ipamMachine("m-0", poolA))
				require.NoError(t, err)
				e.bind(t, "m-0-eth0-0", poolA, "192.168.10.11")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := withPoll(t.Context())
			e := newIPAMEnv(t)
			if tt.noClaimer {
				var err error
				e.instance, err = services.NewInstance(e.cloud, lookupOf(e.machineEnv))
				require.NoError(t, err)
			}
			if tt.setup != nil {
				tt.setup(t, e)
			}
			s := ipamMachine("m-0", poolA)
			_, err := e.instance.Reconcile(ctx, s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.errText)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			}
			var term *step.TerminalError
			if tt.wantReason != "" {
				require.ErrorAs(t, err, &term)
				assert.Equal(t, tt.wantReason, term.Reason)
			} else {
				assert.NotErrorAs(t, err, &term, "retried with backoff")
			}
			assert.Empty(t, s.Object.Spec.ProviderID, "no instance")
		})
	}
}

func TestAddressRequests(t *testing.T) {
	assert.Nil(t, services.AddressRequests(nil))
	assert.Equal(t, []ipam.Request{
		{Device: "eth0", Pool: ipam.PoolRef{APIGroup: ipam.Group, Kind: "InClusterIPPool", Name: "pool-b"}},
		{Device: "eth0", Pool: ipam.PoolRef{APIGroup: ipam.Group, Kind: "InClusterIPPool", Name: "pool-a"}},
	}, services.AddressRequests([]v1beta2.IPPoolRef{poolB, poolA}))
}
