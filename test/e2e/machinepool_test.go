package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/test/internal/capienv"
)

// TestMemMachinePoolWithRealClusterAPI drives a MemMachinePool with the real core manager's MachinePool
// controller (feature gate MachinePool, on by default in v1.14, set explicitly here) and kubeadm bootstrap:
// create, scale up, scale down, delete. Cluster API copies spec.providerIDList and status.replicas from the
// MemMachinePool, and they are always the live instances of the group; nothing is left after the delete.
func TestMemMachinePoolWithRealClusterAPI(t *testing.T) {
	ctx := context.Background()
	capi := capienv.StartT(t, env.Config, env.Client, components,
		capienv.WithArgs(capienv.Core, "--feature-gates=MachinePool=true"),
		capienv.WithArgs(capienv.KubeadmBootstrap, "--feature-gates=MachinePool=true"))
	cl, err := cloud.New(cloud.WithSeed(13), cloud.WithPendingGets(1))
	require.NoError(t, err)
	startProvider(t, cl, 100*time.Millisecond)
	ns, err := env.CreateNamespace(ctx, "pool")
	require.NoError(t, err)
	dumpOnFailure(t, ns)
	const name = "pools"
	owner := ns + "/" + name

	// The cluster and an initialized control plane: kubeadm writes a pool's join data only after that.
	require.NoError(t, createAll(ctx, newCluster(t, ns, name)...))
	cluster := &clusterv1.Cluster{}
	require.Eventually(t, func() bool {
		return env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cluster) == nil && ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false)
	}, lifecycleWait, tick, "the Cluster must see its MemCluster provisioned")
	cp := name + "-cp-0"
	require.NoError(t, createAll(ctx, newMachine(ns, name, cp, true, controlPlaneConfig())...))
	machine := waitMachinePhase(ctx, t, ns, cp, clusterv1.MachinePhaseProvisioned)
	joinFirstControlPlaneNode(ctx, t, ns, cp, machine.Spec.ProviderID)
	waitMachinePhase(ctx, t, ns, cp, clusterv1.MachinePhaseRunning)

	// The MachinePool: a KubeadmConfig, a MemMachinePool and the MachinePool of 3 replicas.
	kc := &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pool"}, Spec: workerConfig()}
	mmp := &v1beta2.MemMachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pool"}, Spec: v1beta2.MemMachinePoolSpec{Flavor: v1beta2.FlavorSmall}}
	mp := &clusterv1.MachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pool"}}
	mp.Spec = clusterv1.MachinePoolSpec{ClusterName: name, Replicas: ptr.To[int32](3)}
	mp.Spec.Template.Spec = clusterv1.MachineSpec{ClusterName: name, Version: kubernetesVersion,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: kubeadmRef("KubeadmConfig", "pool")}, InfrastructureRef: memRef("MemMachinePool", "pool")}
	require.NoError(t, createAll(ctx, kc, mmp, mp))

	for _, replicas := range []int32{3, 5, 1} {
		if replicas != 3 {
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(mp), mp))
			mp.Spec.Replicas = ptr.To(replicas)
			require.NoError(t, env.Client.Update(ctx, mp))
		}
		waitPool(ctx, t, cl, mp, mmp, int(replicas))
		t.Logf("MachinePool at %d replicas: providerIDList and status.replicas follow the group", replicas)
	}

	// Delete: Cluster API deletes the MachinePool, which deletes the MemMachinePool and its group.
	require.NoError(t, env.Client.Delete(ctx, cluster))
	require.Eventually(t, func() bool {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
		return client.IgnoreNotFound(err) == nil && err != nil
	}, lifecycleWait, tick, "deleting the Cluster deletes its MachinePool and infrastructure")
	assert.Empty(t, cl.Leaks(cloud.OwnerTagValue(services.TagCluster), owner), "nothing leaked")
	assert.Empty(t, cl.All(), "the cloud is empty")
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	require.NoError(t, deleteNodes(ctx, cp))
	require.NoError(t, capi.CheckRunning())
}

// waitPool plays the kubelet of every instance of the group until the MachinePool has n ready replicas, and
// checks that the MemMachinePool and the MachinePool list exactly the group's live instances.
func waitPool(ctx context.Context, t *testing.T, cl *cloud.Cloud, mp *clusterv1.MachinePool, mmp *v1beta2.MemMachinePool, n int) {
	t.Helper()
	state := &note{}
	require.Eventually(t, func() bool {
		if env.Client.Get(ctx, client.ObjectKeyFromObject(mmp), mmp) != nil || env.Client.Get(ctx, client.ObjectKeyFromObject(mp), mp) != nil {
			return false
		}
		live := liveGroupInstances(cl, mmp.Status.Resources[services.KeyInstanceGroup])
		for _, id := range mmp.Spec.ProviderIDList {
			if err := joinNode(ctx, "pool-"+id[len(v1beta2.ProviderIDPrefix):], id); err != nil {
				return state.Set(false, err.Error())
			}
		}
		ok := len(live) == n && slices.Equal(live, mmp.Spec.ProviderIDList) && int(mmp.Status.Replicas) == n &&
			slices.Equal(mp.Spec.ProviderIDList, live) && ptr.Deref(mp.Status.Replicas, -1) == int32(n) &&
			ptr.Deref(mp.Status.Initialization.InfrastructureProvisioned, false)
		return state.Set(ok, fmt.Sprintf("group %d live %v, MemMachinePool %v (%d), MachinePool %v (%d), phase %s",
			n, live, mmp.Spec.ProviderIDList, mmp.Status.Replicas, mp.Spec.ProviderIDList, ptr.Deref(mp.Status.Replicas, -1), mp.Status.Phase))
	}, lifecycleWait, tick, "the MachinePool must reach %d replicas: %s", n, state)
	assert.Equal(t, n, cl.Count(cloud.KindInstance)-1, "only the group's instances and the control plane's exist")
}

// liveGroupInstances returns the provider IDs of the live instances of group id, sorted.
func liveGroupInstances(cl *cloud.Cloud, id string) []string {
	var out []string
	for _, r := range cl.List(cloud.KindInstance) {
		if r.Tags[cloud.TagInstanceGroup] == id && id != "" {
			out = append(out, v1beta2.ProviderID(r.ID))
		}
	}
	slices.Sort(out)
	return out
}
