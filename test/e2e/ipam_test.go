package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/test/internal/capienv"
)

// poolRef is the InClusterIPPool "pool" of the in-cluster IPAM provider.
var poolRef = v1beta2.IPPoolRef{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "pool"}

// newPool returns the InClusterIPPool "pool" of ns: 10.10.0.10 to 10.10.0.30, a /24 with gateway 10.10.0.1.
func newPool(ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"addresses": []any{"10.10.0.10-10.10.0.30"}, "prefix": int64(24), "gateway": "10.10.0.1",
	}}}
	u.SetAPIVersion("ipam.cluster.x-k8s.io/v1alpha2")
	u.SetKind("InClusterIPPool")
	u.SetNamespace(ns)
	u.SetName(poolRef.Name)
	return u
}

// TestIPAMWithRealClusterAPI provisions a memcloud cluster whose machines take their addresses from an
// InClusterIPPool of Cluster API's in-cluster IPAM provider (its real manager), with the real Cluster API core and
// kubeadm bootstrap managers: a control plane Machine and three workers get four distinct addresses, which
// memcloud attaches to the instances and reports in status.addresses (so Cluster API copies them to the
// Machines); deleting a worker releases its claim and frees its address, which its replacement gets again (the
// provider allocates the lowest free address); deleting the Cluster releases every address and empties the cloud.
func TestIPAMWithRealClusterAPI(t *testing.T) {
	ctx := context.Background()
	crds, err := capienv.IPAMCRDs()
	require.NoError(t, err)
	_, err = envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{CRDs: crds})
	require.NoError(t, err)
	capi := capienv.StartT(t, env.Config, env.Client, components)
	capienv.StartIPAMProvider(t, env.Config, "e2e")
	cl, err := cloud.New(cloud.WithSeed(28), cloud.WithPendingGets(2))
	require.NoError(t, err)
	startProvider(t, cl, 100*time.Millisecond)

	ns, err := env.CreateNamespace(ctx, "ipam")
	require.NoError(t, err)
	var nodes []string
	t.Cleanup(func() { assert.NoError(t, deleteNodes(context.Background(), nodes...)) }) // after the dump
	dumpOnFailure(t, ns)
	require.NoError(t, env.Client.Create(ctx, newPool(ns)))
	const name, workers = "wl", 3
	owner := ns + "/" + name
	require.NoError(t, createAll(ctx, newCluster(t, ns, name)...))
	cp := name + "-cp-0"
	objs := newMachine(ns, name, cp, true, controlPlaneConfig())
	objs[1].(*v1beta2.MemMachine).Spec.AddressesFromPools = []v1beta2.IPPoolRef{poolRef}
	require.NoError(t, createAll(ctx, objs...))
	machine := waitMachinePhase(ctx, t, ns, cp, clusterv1.MachinePhaseProvisioned)
	joinFirstControlPlaneNode(ctx, t, ns, cp, machine.Spec.ProviderID)
	nodes = append(nodes, cp)

	kct := &bootstrapv1.KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	kct.Spec.Template.Spec = workerConfig()
	mmt := &v1beta2.MemMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	mmt.Spec.Template.Spec = v1beta2.MemMachineSpec{Flavor: v1beta2.FlavorSmall, AddressesFromPools: []v1beta2.IPPoolRef{poolRef}}
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "workers"}}
	md.Spec = clusterv1.MachineDeploymentSpec{ClusterName: name, Replicas: ptr.To[int32](workers)}
	md.Spec.Template.Spec = clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
		Bootstrap:         clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfigTemplate", "workers")},
		InfrastructureRef: memRef("MemMachineTemplate", "workers")}
	require.NoError(t, createAll(ctx, kct, mmt, md))
	addrs := waitAddressed(ctx, t, cl, ns, 1+workers, &nodes)
	t.Logf("addresses by Machine: %v", addrs)
	assert.Len(t, slices.Compact(slices.Sorted(maps.Values(addrs))), 1+workers, "every Machine has its own address")
	assert.Len(t, listIPAM(ctx, t, ns, &ipamv1.IPAddressClaimList{}), 1+workers, "one claim per Machine")

	// Delete a worker: its claim is released and its address freed; its replacement takes the lowest free
	// address, which is the freed one.
	var victim string
	for m := range addrs {
		if m != cp && (victim == "" || addrs[m] < addrs[victim]) {
			victim = m
		}
	}
	freed := addrs[victim]
	require.NoError(t, env.Client.Delete(ctx, &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: victim}}))
	after := waitAddressed(ctx, t, cl, ns, 1+workers, &nodes, victim)
	assert.NotContains(t, after, victim)
	assert.Contains(t, slices.Collect(maps.Values(after)), freed, "the replacement reuses the freed address %s", freed)
	assert.Len(t, listIPAM(ctx, t, ns, &ipamv1.IPAddressList{}), 1+workers, "the deleted worker's IPAddress is gone")
	t.Logf("addresses after replacing %s (%s): %v", victim, freed, after)

	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, lifecycleWait, tick, "deleting the Cluster deletes its Machines and infrastructure")
	assert.Empty(t, listIPAM(ctx, t, ns, &ipamv1.IPAddressClaimList{}), "every claim released")
	assert.Empty(t, listIPAM(ctx, t, ns, &ipamv1.IPAddressList{}), "every address freed")
	assert.Empty(t, cl.Leaks(cloud.OwnerTagValue(services.TagCluster), owner), "nothing leaked")
	assert.Empty(t, cl.All(), "the cloud is empty")
	require.NoError(t, capi.CheckRunning())
}

// listIPAM lists the IPAM objects of ns into l and returns their names.
func listIPAM(ctx context.Context, t *testing.T, ns string, l client.ObjectList) []string {
	t.Helper()
	require.NoError(t, env.Client.List(ctx, l, client.InNamespace(ns)))
	var out []string
	switch l := l.(type) {
	case *ipamv1.IPAddressClaimList:
		for _, c := range l.Items {
			out = append(out, c.Name)
		}
	case *ipamv1.IPAddressList:
		for _, a := range l.Items {
			out = append(out, a.Name+"="+a.Spec.Address)
		}
	}
	return out
}

// waitAddressed waits until ns has want Running Machines (none of gone), each with an address from the pool in
// its MemMachine's status.addresses and on its instance, and Cluster API's copy on the Machine; it plays the
// kubelet of new Machines. It returns the pool address of each Machine, by name.
func waitAddressed(ctx context.Context, t *testing.T, cl *cloud.Cloud, ns string, want int, nodes *[]string, gone ...string) map[string]string {
	t.Helper()
	var out map[string]string
	state := &note{}
	require.Eventually(t, func() bool {
		list := &clusterv1.MachineList{}
		if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			return state.Set(false, err.Error())
		}
		for _, m := range list.Items {
			if m.Spec.ProviderID != "" && !slices.Contains(*nodes, m.Name) && !slices.Contains(gone, m.Name) {
				if err := joinNode(ctx, m.Name, m.Spec.ProviderID); err != nil {
					return state.Set(false, err.Error())
				}
				*nodes = append(*nodes, m.Name)
			}
		}
		out = map[string]string{}
		for _, m := range list.Items {
			if slices.Contains(gone, m.Name) {
				return state.Set(false, fmt.Sprintf("Machine %q is still there", m.Name))
			}
			if m.Status.Phase != string(clusterv1.MachinePhaseRunning) {
				return state.Set(false, fmt.Sprintf("Machine %q is %s", m.Name, m.Status.Phase))
			}
			mm := &v1beta2.MemMachine{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: m.Spec.InfrastructureRef.Name}, mm); err != nil {
				return state.Set(false, err.Error())
			}
			addr := poolAddress(mm.Status.Addresses)
			if addr == "" {
				return state.Set(false, fmt.Sprintf("MemMachine %q has no pool address: %v", mm.Name, mm.Status.Addresses))
			}
			if !slices.ContainsFunc(m.Status.Addresses, func(a clusterv1.MachineAddress) bool { return a.Address == addr }) {
				return state.Set(false, fmt.Sprintf("Machine %q does not have %s yet", m.Name, addr))
			}
			inst, err := instanceOf(ctx, cl, mm)
			if err != nil {
				return state.Set(false, err.Error())
			}
			if !slices.Contains(inst.StaticIPs, addr) {
				return state.Set(false, fmt.Sprintf("instance %s has %v, not %s", inst.ID, inst.StaticIPs, addr))
			}
			out[m.Name] = addr
		}
		if len(list.Items) != want {
			return state.Set(false, fmt.Sprintf("%d Machines", len(list.Items)))
		}
		return state.Set(true, "")
	}, 2*lifecycleWait, tick, "every Machine must get an address from the pool: %s", state)
	return out
}

// poolAddress returns the address of addrs in the pool's range 10.10.0.0/24, "" if none.
func poolAddress(addrs []contract.MachineAddress) string {
	for _, a := range addrs {
		if a.Type == contract.MachineInternalIP && len(a.Address) > 8 && a.Address[:8] == "10.10.0." {
			return a.Address
		}
	}
	return ""
}
