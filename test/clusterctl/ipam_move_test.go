package clusterctl_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/test/internal/capienv"
)

// ipamPool is the InClusterIPPool the moved cluster's machines take their addresses from.
var ipamPool = v1beta2.IPPoolRef{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "pool"}

// pooledObjects are v1beta2Objects whose machines and template ask for an address from ipamPool.
var pooledObjects = infraObjects{
	cluster: v1beta2Objects.cluster,
	machine: func(ns, name string) client.Object {
		mm := v1beta2Objects.machine(ns, name).(*v1beta2.MemMachine)
		mm.Spec.AddressesFromPools = []v1beta2.IPPoolRef{ipamPool}
		return mm
	},
	template: func(ns, name string) client.Object {
		mmt := v1beta2Objects.template(ns, name).(*v1beta2.MemMachineTemplate)
		mmt.Spec.Template.Spec.AddressesFromPools = []v1beta2.IPPoolRef{ipamPool}
		return mmt
	},
}

// TestMoveWithIPAddressClaims moves a memcloud cluster whose machines have addresses from an InClusterIPPool
// (Cluster API's in-cluster IPAM provider, its real manager on both management clusters) with clusterctl's
// library. Before the move a worker is deleted, leaving a hole in the pool, so that an allocation from scratch on
// the target would hand out different addresses. After the move every claim has the same address as before, no
// claim is added, the instances keep their addresses and nothing is created in the cloud; deleting the Cluster
// on the target releases every address and empties the cloud.
func TestMoveWithIPAddressClaims(t *testing.T) {
	ctx := context.Background()
	step := capienv.StepTimer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	crds, err := capienv.IPAMCRDs()
	require.NoError(t, err)
	// Two management clusters of their own: the package's API server keeps the inventory other tests expect.
	var source, target *testenv.Environment
	for _, e := range []**testenv.Environment{&source, &target} {
		opts, err := envOptions()
		require.NoError(t, err)
		*e, err = capienv.NewEnvironment(addToScheme, opts...)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, (*e).Stop()) })
	}
	providers := append(inventory(t), capienv.InventoryProvider{Name: "in-cluster", Type: clusterctlv1.IPAMProviderType,
		Version: "v1.1.0", Namespace: "capi-ipam-in-cluster-system", CRDs: capienv.CRDNames(crds...)})
	for _, e := range []*testenv.Environment{source, target} {
		fresh, err := capienv.IPAMCRDs() // InstallCRDs writes into the objects it installs
		require.NoError(t, err)
		_, err = envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{CRDs: fresh})
		require.NoError(t, err)
		require.NoError(t, capienv.InstallInventory(ctx, e.Client, providers...))
	}
	step("source and target started; the in-cluster IPAM provider's CRDs and the inventory in both")

	cl, err := cloud.New(cloud.WithSeed(47))
	require.NoError(t, err)
	srcCAPI := capienv.StartT(t, source.Config, source.Client, capienv.AllComponents)
	capienv.StartIPAMProvider(t, source.Config, "source")
	startMemcloud(t, source, cl, "source-ipam")
	ns, err := source.CreateNamespace(ctx, "move-ipam")
	require.NoError(t, err)
	dumpOnFailure(t, source.Client, "source", ns)
	dumpOnFailure(t, target.Client, "target", ns)
	require.NoError(t, source.Client.Create(ctx, inClusterPool(ns)))
	const name, workers = "wl", 3
	nodes := provision(ctx, t, source, ns, name, workers, pooledObjects)
	t.Cleanup(func() { assert.NoError(t, capienv.DeleteNodes(context.Background(), source.Client, nodes...)) })
	step("source cluster provisioned with addresses from the pool")

	// A hole: the worker with the lowest address goes, and the MachineDeployment shrinks to two.
	before := claimAddresses(ctx, t, source.Client, ns)
	require.Len(t, before, 1+workers)
	victim := lowestWorker(ctx, t, source.Client, ns, before)
	md := &clusterv1.MachineDeployment{}
	require.NoError(t, source.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "workers"}, md))
	m := &clusterv1.Machine{}
	require.NoError(t, source.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: victim}, m))
	patch := client.MergeFrom(m.DeepCopy())
	m.Annotations = map[string]string{clusterv1.DeleteMachineAnnotation: ""}
	require.NoError(t, source.Client.Patch(ctx, m, patch))
	mdPatch := client.MergeFrom(md.DeepCopy())
	md.Spec.Replicas = ptr.To[int32](workers - 1)
	require.NoError(t, source.Client.Patch(ctx, md, mdPatch))
	require.Eventually(t, func() bool {
		return len(claimAddresses(ctx, t, source.Client, ns)) == workers
	}, moveWait, tick, "deleting worker %q releases its claim", victim)
	before = claimAddresses(ctx, t, source.Client, ns)
	t.Logf("claims and addresses before the move, %s's freed: %v", victim, before)
	resources, created := ids(cl.All()), cl.TotalCreated()
	step("a hole in the pool: worker " + victim + " deleted")

	capienv.StartT(t, target.Config, target.Client, capienv.AllComponents)
	capienv.StartIPAMProvider(t, target.Config, "target")
	startMemcloud(t, target, cl, "target-ipam")
	log, err := capienv.Move(ctx, t.TempDir(), source.Config, target.Config, ns)
	require.NoError(t, err, "clusterctl's log:\n%s", log)
	step("clusterctl move done")

	var got map[string]string
	require.Eventually(t, func() bool {
		got = claimAddresses(ctx, t, target.Client, ns)
		for _, a := range got {
			if a == "" {
				return false
			}
		}
		mms := &v1beta2.MemMachineList{}
		if target.Client.List(ctx, mms, client.InNamespace(ns)) != nil || len(mms.Items) != workers {
			return false
		}
		for _, mm := range mms.Items {
			if !ptr.Deref(mm.Status.Initialization.Provisioned, false) {
				return false
			}
		}
		return len(got) == len(before)
	}, moveWait, tick, "the IPAM provider and memcloud on the target must bind every claim again")
	assert.Equal(t, before, got, "every claim keeps its address across the move")
	assert.Empty(t, claimAddresses(ctx, t, source.Client, ns), "no claim left on the source")
	assert.Equal(t, resources, ids(cl.All()), "the same cloud resources")
	assert.Equal(t, created, cl.TotalCreated(), "nothing created in the cloud after the move")
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	step("target: every claim bound to the same address, memcloud provisioned")
	require.NoError(t, srcCAPI.CheckRunning())

	deleteCluster(ctx, t, target.Client, ns, name)
	assert.Empty(t, claimAddresses(ctx, t, target.Client, ns), "every claim released on the target")
	addrs := &ipamv1.IPAddressList{}
	require.NoError(t, target.Client.List(ctx, addrs, client.InNamespace(ns)))
	assert.Empty(t, addrs.Items, "every address freed on the target")
	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(cloud.OwnerTagValue(services.TagCluster)))
	step("cluster deleted on the target: addresses freed, the cloud empty")
}

// inClusterPool returns the InClusterIPPool of ns: 10.20.0.10 to 10.20.0.30, a /24 with gateway 10.20.0.1.
func inClusterPool(ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"addresses": []any{"10.20.0.10-10.20.0.30"}, "prefix": int64(24), "gateway": "10.20.0.1",
	}}}
	u.SetAPIVersion("ipam.cluster.x-k8s.io/v1alpha2")
	u.SetKind(ipamPool.Kind)
	u.SetNamespace(ns)
	u.SetName(ipamPool.Name)
	return u
}

// claimAddresses returns the address of each IPAddressClaim of ns ("" while unbound), by claim name.
func claimAddresses(ctx context.Context, t *testing.T, c client.Client, ns string) map[string]string {
	t.Helper()
	claims := &ipamv1.IPAddressClaimList{}
	require.NoError(t, c.List(ctx, claims, client.InNamespace(ns)))
	out := map[string]string{}
	for _, claim := range claims.Items {
		out[claim.Name] = ""
		if claim.Status.AddressRef.Name == "" {
			continue
		}
		a := &ipamv1.IPAddress{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: claim.Status.AddressRef.Name}, a); err == nil {
			out[claim.Name] = a.Spec.Address
		}
	}
	return out
}

// lowestWorker returns the name of the worker Machine whose claim holds the lowest address.
func lowestWorker(ctx context.Context, t *testing.T, c client.Client, ns string, addrs map[string]string) string {
	t.Helper()
	list := &clusterv1.MachineList{}
	require.NoError(t, c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: "workers"}))
	victim, lowest := "", ""
	for _, m := range list.Items {
		for claim, a := range addrs {
			if owned(ctx, c, ns, claim, m.Spec.InfrastructureRef.Name) && (lowest == "" || a < lowest) {
				victim, lowest = m.Name, a
			}
		}
	}
	require.NotEmpty(t, victim, "a worker with a claim: %v", addrs)
	return victim
}

// owned reports whether claim ns/claim is controlled by the MemMachine named machine.
func owned(ctx context.Context, c client.Client, ns, claim, machine string) bool {
	obj := &ipamv1.IPAddressClaim{}
	if c.Get(ctx, client.ObjectKey{Namespace: ns, Name: claim}, obj) != nil {
		return false
	}
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.Kind == "MemMachine" && ref.Name == machine
}
