package ipam_test

import (
	"context"
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
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/step"
)

// TestEnvtest runs a Claimer against a real kube-apiserver with Cluster API v1.14.2's IPAM CRDs (testdata/crds
// holds core/config/crd/bases/ipam.cluster.x-k8s.io_*.yaml of sigs.k8s.io/cluster-api@v1.14.2, unchanged: the
// root module does not depend on Cluster API), the test playing the IPAM provider. It fails, never skips,
// without the envtest binaries.
func TestEnvtest(t *testing.T) {
	assets, err := testenv.AssetsDir()
	if err != nil {
		t.Fatalf("%v: run make test (builds envtest binaries with hack/envtest-binaries.sh)", err)
	}
	fooCRDs, err := testtypes.CRDObjects()
	require.NoError(t, err)
	env, err := testenv.NewEnvironment(testenv.WithAssets(assets), testenv.WithoutCAPICRDs(), testenv.WithScheme(testtypes.Scheme()),
		testenv.WithCRDs(fooCRDs...), testenv.WithCRDPaths("testdata/crds"))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := env.Client
	namespace := env.Namespace(t, "ipam")

	m := &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "worker-1"}}
	require.NoError(t, c.Create(ctx, m))
	cl, err := ipam.NewClaimer(c)
	require.NoError(t, err)
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}}

	// Claim creates the claim, which the API server accepts as it is, and waits.
	addrs, res, err := cl.Claim(ctx, m, "c1", reqs)
	require.NoError(t, err)
	assert.Nil(t, addrs)
	assert.Equal(t, step.Result{Reason: conditions.ReasonWaitingForIPAddresses, Message: "waiting for the IP address of claim worker-1-eth0-0",
		RequeueAfter: step.DefaultPollInterval}, res)
	key := client.ObjectKey{Namespace: namespace, Name: "worker-1-eth0-0"}
	claim := ipam.ClaimObject()
	require.NoError(t, c.Get(ctx, key, claim))
	assert.Equal(t, map[string]any{"clusterName": "c1",
		"poolRef": map[string]any{"apiGroup": "ipam.cluster.x-k8s.io", "kind": "InClusterIPPool", "name": "nodes"}}, claim.Object["spec"])
	assert.Equal(t, []metav1.OwnerReference{{APIVersion: "infrastructure.capkit.io/v1alpha1", Kind: "FooMachine", Name: "worker-1",
		UID: m.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}, claim.GetOwnerReferences())

	// The IPAM provider: a finalizer on the claim, the IPAddress named after it, then status.addressRef.
	claim.SetFinalizers([]string{"ipam.cluster.x-k8s.io/ReleaseAddress"})
	require.NoError(t, c.Update(ctx, claim))
	ip := address("worker-1-eth0-0", nodes, "10.0.0.10", int64(24), "10.0.0.1")
	ip.SetNamespace(namespace)
	require.NoError(t, c.Create(ctx, ip))
	require.NoError(t, c.Status().Update(ctx, withAddressRef(claim, ip.GetName())))

	addrs, res, err = cl.Claim(ctx, m, "c1", reqs)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Equal(t, []ipam.Address{{Device: "eth0", Pool: nodes, Claim: "worker-1-eth0-0",
		Address: netip.MustParseAddr("10.0.0.10"), Prefix: 24, Gateway: netip.MustParseAddr("10.0.0.1")}}, addrs)

	// Unclaim deletes the claim; the IPAM provider's finalizer holds it until the address is released.
	res, err = cl.Unclaim(ctx, m, reqs)
	require.NoError(t, err)
	assert.Equal(t, step.Result{Reason: conditions.ReasonReleasingIPAddresses, Message: "waiting for claim worker-1-eth0-0 to be deleted",
		RequeueAfter: step.DefaultPollInterval}, res)
	require.NoError(t, c.Get(ctx, key, claim))
	assert.NotNil(t, claim.GetDeletionTimestamp())
	addrs, res, err = cl.Claim(ctx, m, "c1", reqs)
	require.NoError(t, err, "a claim being deleted is waited for")
	assert.Nil(t, addrs)
	assert.Equal(t, conditions.ReasonWaitingForIPAddresses, res.Reason)

	require.NoError(t, c.Delete(ctx, ip))
	claim.SetFinalizers(nil)
	require.NoError(t, c.Update(ctx, claim))
	res, err = cl.Unclaim(ctx, m, reqs)
	require.NoError(t, err)
	assert.True(t, res.Done)
	err = c.Get(ctx, key, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "ipam.cluster.x-k8s.io/v1beta2", "kind": "IPAddressClaim"}})
	assert.True(t, client.IgnoreNotFound(err) == nil && err != nil, "claim gone: %v", err)
}
