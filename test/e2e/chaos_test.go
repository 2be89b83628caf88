package e2e_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/test/internal/capienv"
)

// The chaos run: 20 clusters of one control plane Machine and four workers.
const (
	chaosSeed     = 20260101
	chaosClusters = 20
	chaosWorkers  = 4
	chaosMachines = chaosClusters * (1 + chaosWorkers)
	// chaosObjects is the number of memcloud objects: a MemCluster per cluster, a MemMachine per Machine.
	chaosObjects = chaosClusters + chaosMachines
	// Each cluster has a network, two subnets, a security group, a load balancer and an instance per Machine.
	chaosResourcesPerCluster = 1 + 2 + 1 + 1 + 1 + chaosWorkers
	// chaosThresholdRestarts restarts happen in each phase when its progress passes seeded thresholds; more
	// happen at random times.
	chaosThresholdRestarts = 3
	chaosWait              = 6 * time.Minute
)

// TestChaos runs 20 clusters × 5 Machines through the real Cluster API managers and memcloud while the cloud
// fails 20% of its mutating calls (half of them after making the change), tag search lags 3 calls behind,
// another writer keeps moving the resourceVersion of memcloud's objects, and memcloud's manager is stopped
// and restarted with the same cloud at random points. Every cluster must converge with each cloud resource
// created exactly once, no write of memcloud may drop the other writer's condition, and deleting the
// Clusters must leave the cloud empty.
func TestChaos(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	capi := capienv.StartT(t, env.Config, env.Client, components)
	cl, err := cloud.New(cloud.WithSeed(chaosSeed), cloud.WithPendingGets(1), cloud.WithFaults(cloud.FaultConfig{
		BeforeChange: 0.1, AfterChange: 0.1, SearchLag: 3, Latency: time.Millisecond, Jitter: 4 * time.Millisecond,
	}))
	require.NoError(t, err)
	p := startProvider(t, cl, 200*time.Millisecond)
	ns, err := env.CreateNamespace(ctx, "chaos")
	require.NoError(t, err)
	dumpOnFailure(t, ns)

	rng := rand.New(rand.NewPCG(chaosSeed, 0))
	restarts := map[string][]int{phaseProvision: thresholds(rng), phaseDelete: thresholds(rng)}
	t.Logf("restart thresholds (memcloud objects provisioned, then deleted, of %d): %v", chaosObjects, restarts)
	for i := range chaosClusters {
		name := fmt.Sprintf("c%02d", i)
		require.NoError(t, createAll(ctx, newCluster(t, ns, name)...))
		require.NoError(t, createAll(ctx, newMachine(ns, name, name+"-cp-0", true, bootstrapv1.KubeadmConfigSpec{})...))
	}
	a := startAgents(p, ns, chaosWorkers, chaosSeed, restarts)
	stopped := false
	stopAgents := func() {
		if !stopped {
			stopped = true
			for _, err := range a.Stop() {
				t.Errorf("chaos monkey: %v", err)
			}
		}
	}
	t.Cleanup(stopAgents)

	state := &note{}
	require.Eventually(t, func() bool { return state.Set(converged(ctx, ns)) }, chaosWait, 2*time.Second,
		"every cluster must converge; last state: %s", state)
	provisioned := time.Since(start)
	require.Eventually(t, func() bool { return a.PendingRestarts() == 0 }, time.Minute, tick, "the restarts of the provisioning phase")
	t.Logf("%5.1fs %d clusters, %d Machines running; %d restarts so far", provisioned.Seconds(), chaosClusters, chaosMachines, p.Restarts())

	// Nothing twice: no duplicate now, and no resource ever created beyond one per role.
	owner := cloud.OwnerTagValue(services.TagCluster)
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(reconcile.TagOwnershipKey), reconcile.TagResourceKey))
	report := cl.Report(owner)
	for i := range chaosClusters {
		o := fmt.Sprintf("%s/c%02d", ns, i)
		assert.Len(t, report.ByOwner[o], chaosResourcesPerCluster, "resources of %s", o)
	}
	assert.Empty(t, report.Unowned)
	assert.Equal(t, chaosClusters*chaosResourcesPerCluster, cl.TotalCreated(), "each cloud resource was created once")
	assertProbesKept(ctx, t, ns, a.Probed())

	// Delete every Cluster while the chaos goes on.
	deleteStart := time.Now()
	a.SetPhase(phaseDelete)
	for i := range chaosClusters {
		c := &clusterv1.Cluster{}
		c.Namespace, c.Name = ns, fmt.Sprintf("c%02d", i)
		require.NoError(t, env.Client.Delete(ctx, c))
	}
	require.Eventually(t, func() bool { return state.Set(gone(ctx, ns)) }, chaosWait, 2*time.Second,
		"every cluster must be deleted; left: %s", state)
	require.Eventually(t, func() bool { return a.PendingRestarts() == 0 }, time.Minute, tick, "the restarts of the delete phase")
	stopAgents()
	deleted := time.Since(deleteStart)

	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(owner))
	for i := range chaosClusters {
		o := fmt.Sprintf("%s/c%02d", ns, i)
		assert.Empty(t, cl.Leaks(owner, o), "leaks of %s", o)
	}
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(reconcile.TagOwnershipKey), reconcile.TagResourceKey))
	assert.Equal(t, chaosClusters*chaosResourcesPerCluster, cl.TotalCreated(), "no resource was created while deleting")
	assert.GreaterOrEqual(t, p.Restarts(), 2*chaosThresholdRestarts, "memcloud's manager was restarted at every threshold")
	assert.Positive(t, p.conflicts.Load(), "the other writer provoked conflicts on memcloud's writes")
	require.NoError(t, deleteNodes(ctx, a.Nodes()...))
	require.NoError(t, capi.CheckRunning())

	calls := cl.Calls()
	t.Logf("chaos figures: clusters=%d machines=%d cloud-calls=%d faults-injected=%d (%.1f%% of %d mutating calls) "+
		"manager-restarts=%d conflicts-provoked=%d (409s on memcloud's writes) memcloud-API-writes=%d "+
		"other-writer: label-patches=%d status-updates=%d own-409s=%d; provision=%s delete=%s total=%s",
		chaosClusters, chaosMachines, calls.Total(), calls.Faults, 100*float64(calls.Faults)/float64(max(calls.Mutations, 1)), calls.Mutations,
		p.Restarts(), p.conflicts.Load(), p.writes.Load(),
		a.labelWrites.Load(), a.statusWrites.Load(), a.ownConflicts.Load(),
		provisioned.Round(time.Second), deleted.Round(time.Second), time.Since(start).Round(time.Second))
}

// thresholds returns chaosThresholdRestarts distinct progress values from 5 to chaosObjects-10, sorted.
func thresholds(rng *rand.Rand) []int {
	var out []int
	for len(out) < chaosThresholdRestarts {
		v := 5 + rng.IntN(chaosObjects-15)
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// converged reports whether every Cluster has its infrastructure provisioned and its control plane
// initialized, and every Machine is Running with the providerID of its Ready MemMachine; else it describes
// what is missing.
func converged(ctx context.Context, ns string) (bool, string) {
	clusters, machines, mms := &clusterv1.ClusterList{}, &clusterv1.MachineList{}, &v1beta2.MemMachineList{}
	for _, l := range []client.ObjectList{clusters, machines, mms} {
		if err := env.Client.List(ctx, l, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
	}
	var missing []string
	for _, c := range clusters.Items {
		if !ptr.Deref(c.Status.Initialization.InfrastructureProvisioned, false) ||
			!meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition) {
			missing = append(missing, "Cluster "+c.Name)
		}
	}
	ready := map[string]string{}
	for _, m := range mms.Items {
		if meta.IsStatusConditionTrue(m.Status.Conditions, v1beta2.ReadyCondition) {
			ready[m.Name] = m.Spec.ProviderID
		}
	}
	running := 0
	for _, m := range machines.Items {
		if m.Status.Phase == string(clusterv1.MachinePhaseRunning) && m.Spec.ProviderID != "" && ready[m.Name] == m.Spec.ProviderID {
			running++
		} else if len(missing) < 10 {
			missing = append(missing, fmt.Sprintf("Machine %s (%s)", m.Name, m.Status.Phase))
		}
	}
	state := fmt.Sprintf("%d/%d Machines running; %d/%d clusters; not ready: %s", running, chaosMachines,
		len(clusters.Items)-countPrefix(missing, "Cluster "), chaosClusters, strings.Join(missing, ", "))
	return len(clusters.Items) == chaosClusters && len(machines.Items) == chaosMachines && running == chaosMachines && len(missing) == 0, state
}

func countPrefix(ss []string, prefix string) int {
	n := 0
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// gone reports whether no Cluster, Machine, MemCluster or MemMachine is left in ns; else it counts them.
func gone(ctx context.Context, ns string) (bool, string) {
	lists := []client.ObjectList{&clusterv1.ClusterList{}, &clusterv1.MachineList{}, &v1beta2.MemClusterList{}, &v1beta2.MemMachineList{}}
	total, parts := 0, make([]string, 0, len(lists))
	for _, l := range lists {
		if err := env.Client.List(ctx, l, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		n := meta.LenList(l)
		total += n
		parts = append(parts, fmt.Sprintf("%T=%d", l, n))
	}
	return total == 0, strings.Join(parts, " ")
}

// assertProbesKept checks that every object the other writer wrote its condition into still has it: memcloud
// rebased its conflicting writes instead of overwriting the conditions.
func assertProbesKept(ctx context.Context, t *testing.T, ns string, probed map[string]bool) {
	t.Helper()
	require.NotEmpty(t, probed)
	lost := 0
	for key := range probed {
		kind, name, _ := strings.Cut(key, "/")
		var conds []metav1.Condition
		switch kind {
		case "MemMachine":
			o := &v1beta2.MemMachine{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o))
			conds = o.Status.Conditions
		case "MemCluster":
			o := &v1beta2.MemCluster{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o))
			conds = o.Status.Conditions
		}
		if meta.FindStatusCondition(conds, chaosCondition) == nil {
			lost++
			t.Errorf("%s lost the %s condition another writer set", key, chaosCondition)
		}
	}
	t.Logf("%d objects carry the other writer's condition; %d lost it", len(probed), lost)
}
