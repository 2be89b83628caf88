package e2e_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
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
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/test/internal/capienv"
)

const (
	chaosSeed = 20260101
	// chaosThresholdRestarts restarts happen in each phase when its progress passes seeded thresholds; more
	// happen at random times.
	chaosThresholdRestarts = 3
	// chaosLogEvery is how often a phase logs how far it got.
	chaosLogEvery = 30 * time.Second
	// chaosAsyncCreates is how long the cloud's create operations run, and chaosSearchLag how long after a
	// resource exists the cloud's tag search lists it (issue 41).
	chaosAsyncCreates = 500 * time.Millisecond
	chaosSearchLag    = time.Second
)

// TestChaos runs clusters of Machines (20 × 5 unless CAPKIT_CHAOS_CLUSTERS and CAPKIT_CHAOS_WORKERS say
// otherwise) through the real Cluster API managers and memcloud while the cloud runs every create as an
// operation of chaosAsyncCreates (5% of which fail), lists a resource in its tag search chaosSearchLag after it
// exists and 3 searches later, fails 20% of its mutating calls (half of them after making the change), other
// writers keep moving the resourceVersion of memcloud's objects, and memcloud's manager is stopped and
// restarted with the same cloud at random points. Every cluster must converge with each cloud resource created
// exactly once, no write of memcloud may drop the other writers' condition, and deleting the Clusters must
// leave the cloud empty.
func TestChaos(t *testing.T) {
	size := chaosSizeT(t)
	ctx := context.Background()
	start := time.Now()
	capi := capienv.StartT(t, env.Config, env.Client, components)
	cl, err := cloud.New(cloud.WithSeed(chaosSeed), cloud.WithPendingGets(1),
		cloud.WithAsyncCreates(chaosAsyncCreates), cloud.WithSearchLag(chaosSearchLag), cloud.WithFaults(cloud.FaultConfig{
			BeforeChange: 0.1, AfterChange: 0.1, InOperation: 0.05, SearchLag: 3, Latency: time.Millisecond, Jitter: 4 * time.Millisecond,
		}))
	require.NoError(t, err)
	p := startProvider(t, cl, 200*time.Millisecond, reconcile.WithMaxConcurrentReconciles(size.concurrency()))
	ns, err := env.CreateNamespace(ctx, "chaos")
	require.NoError(t, err)
	dumpOnFailure(t, ns)
	fleet := startFleetCache(t, ns)

	rng := rand.New(rand.NewPCG(chaosSeed, 0))
	objects := size.objects()
	restarts := map[string][]int{phaseProvision: thresholds(rng, objects), phaseDelete: thresholds(rng, objects)}
	t.Logf("%s, each phase within %s; %d workers per memcloud controller; %d conflict agents poke every %s; "+
		"restart thresholds (memcloud objects provisioned, then deleted, of %d): %v",
		size, size.wait(), size.concurrency(), size.pokers(), size.pokeEvery().Round(100*time.Microsecond), objects, restarts)
	for i := range size.clusters {
		name := size.cluster(i)
		require.NoError(t, createAll(ctx, newCluster(t, ns, name)...))
		require.NoError(t, createAll(ctx, newMachine(ns, name, name+"-cp-0", true, bootstrapv1.KubeadmConfigSpec{})...))
	}
	a := startAgents(p, fleet, ns, size, chaosSeed, restarts)
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

	owner := cloud.OwnerTagValue(services.TagCluster)
	var provisioned, deleted time.Duration
	defer func() { logChaosFigures(t, size, cl, p, a, ns, provisioned, deleted, time.Since(start)) }()

	waitPhase(t, p, "provision", size.wait(), func() (bool, string) { return converged(ctx, fleet, ns, size) })
	provisioned = time.Since(start)
	require.Eventually(t, func() bool { return a.PendingRestarts() == 0 }, time.Minute, tick, "the restarts of the provisioning phase")
	t.Logf("%5.1fs %d clusters, %d Machines running; %d restarts so far", provisioned.Seconds(), size.clusters, size.machines(), p.Restarts())

	// Nothing twice: no duplicate now, and no resource ever created beyond one per role.
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	report := cl.Report(owner)
	for i := range size.clusters {
		o := ns + "/" + size.cluster(i)
		assert.Len(t, report.ByOwner[o], size.resourcesPerCluster(), "resources of %s", o)
	}
	assert.Empty(t, report.Unowned)
	assert.Equal(t, size.clusters*size.resourcesPerCluster(), cl.TotalCreated(), "each cloud resource was created once")
	assertProbesKept(ctx, t, ns, a.Probed())

	// Delete every Cluster while the chaos goes on.
	deleteStart := time.Now()
	a.SetPhase(phaseDelete)
	for i := range size.clusters {
		c := &clusterv1.Cluster{}
		c.Namespace, c.Name = ns, size.cluster(i)
		require.NoError(t, env.Client.Delete(ctx, c))
	}
	waitPhase(t, p, "delete", size.wait(), func() (bool, string) { return gone(ctx, fleet, ns) })
	require.Eventually(t, func() bool { return a.PendingRestarts() == 0 }, time.Minute, tick, "the restarts of the delete phase")
	stopAgents()
	deleted = time.Since(deleteStart)

	assert.Empty(t, cl.All(), "the cloud is empty: %s", cl.Report(owner))
	for i := range size.clusters {
		o := ns + "/" + size.cluster(i)
		assert.Empty(t, cl.Leaks(owner, o), "leaks of %s", o)
	}
	assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	assert.Equal(t, size.clusters*size.resourcesPerCluster(), cl.TotalCreated(), "no resource was created while deleting")
	assert.GreaterOrEqual(t, p.Restarts(), 2*chaosThresholdRestarts, "memcloud's manager was restarted at every threshold")
	assert.Positive(t, p.conflicts.Load(), "the other writers provoked conflicts on memcloud's writes")
	require.NoError(t, deleteNodes(ctx, a.Nodes()...))
	require.NoError(t, capi.CheckRunning())
}

// waitPhase waits at most wait, polling every 2 s, until done reports true. Every chaosLogEvery it logs the
// state done describes, p's restarts and this process's heap; when the wait is over it fails the test with the
// last state.
func waitPhase(t *testing.T, p *provider, phase string, wait time.Duration, done func() (bool, string)) {
	t.Helper()
	state := &note{}
	start, logged := time.Now(), time.Now()
	require.Eventually(t, func() bool {
		ok, s := done()
		if time.Since(logged) >= chaosLogEvery {
			logged = time.Now()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms) // memcloud's managers run in this process: a growing heap is theirs or the agents'
			t.Logf("%s: %s in, %d restarts, heap %d MiB: %s", phase, time.Since(start).Round(time.Second), p.Restarts(), ms.HeapAlloc>>20, s)
		}
		return state.Set(ok, s)
	}, wait, 2*time.Second, "%s: not done within %s; last state: %s", phase, wait, state)
}

// logChaosFigures logs the run's figures in one line, the first ones those the README quotes: the size, the time,
// the faults, restarts and conflicts, and the duplicates and leaks (0 unless the test failed).
func logChaosFigures(t *testing.T, size chaosSize, cl *cloud.Cloud, p *provider, a *agents, ns string, provisioned, deleted, total time.Duration) {
	t.Helper()
	owner := cloud.OwnerTagValue(services.TagCluster)
	leaks := 0
	for i := range size.clusters {
		leaks += len(cl.Leaks(owner, ns+"/"+size.cluster(i)))
	}
	duplicates := len(cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey))
	calls := cl.Calls()
	objects := float64(size.objects())
	pokes := a.labelWrites.Load() + a.statusWrites.Load()
	t.Logf("chaos figures: clusters=%d machines=%d elapsed=%s (provision=%s delete=%s) faults-injected=%d (%.1f%% of %d mutating calls) "+
		"manager-restarts=%d conflicts-caused=%d (409s on memcloud's writes, %.3f per memcloud object) duplicates=%d leaks=%d; "+
		"slowest-restart=%s managers-stopped-by-cache-sync-timeout=%d cloud-calls=%d memcloud-API-writes=%d other-writers: label-patches=%d status-updates=%d own-409s=%d (%.2f pokes per object per second)",
		size.clusters, size.machines(), total.Round(time.Second), provisioned.Round(time.Second), deleted.Round(time.Second),
		calls.Faults, 100*float64(calls.Faults)/float64(max(calls.Mutations, 1)), calls.Mutations,
		p.Restarts(), p.conflicts.Load(), float64(p.conflicts.Load())/objects, duplicates, leaks,
		p.SlowestStart().Round(100*time.Millisecond), p.Crashes(), calls.Total(), p.writes.Load(), a.labelWrites.Load(), a.statusWrites.Load(), a.ownConflicts.Load(),
		float64(pokes)/objects/max(total.Seconds(), 1))
}

// thresholds returns chaosThresholdRestarts distinct progress values from 5 to objects-10, sorted.
func thresholds(rng *rand.Rand, objects int) []int {
	var out []int
	for len(out) < chaosThresholdRestarts {
		v := 5 + rng.IntN(objects-15)
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// converged reports whether every Cluster has its infrastructure provisioned and its control plane
// initialized, and every Machine is Running with the providerID of its Ready MemMachine; else it describes
// what is missing. It reads fleet (a cache) and, once that shows convergence, confirms it with the API server.
func converged(ctx context.Context, fleet client.Reader, ns string, size chaosSize) (bool, string) {
	ok, state := convergedIn(ctx, fleet, ns, size)
	if ok {
		ok, state = convergedIn(ctx, env.Client, ns, size)
	}
	return ok, state
}

func convergedIn(ctx context.Context, r client.Reader, ns string, size chaosSize) (bool, string) {
	clusters, machines, mms := &clusterv1.ClusterList{}, &clusterv1.MachineList{}, &v1beta2.MemMachineList{}
	for _, l := range []client.ObjectList{clusters, machines, mms} {
		if err := r.List(ctx, l, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
			return false, err.Error()
		}
	}
	var missing []string // the first 10 of what is not ready
	notReady := func(s string) {
		if len(missing) < 10 {
			missing = append(missing, s)
		}
	}
	readyClusters := 0
	for _, c := range clusters.Items {
		if ptr.Deref(c.Status.Initialization.InfrastructureProvisioned, false) &&
			meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1.ClusterControlPlaneInitializedCondition) {
			readyClusters++
		} else {
			notReady("Cluster " + c.Name)
		}
	}
	ready := make(map[string]string, len(mms.Items))
	for _, m := range mms.Items {
		if meta.IsStatusConditionTrue(m.Status.Conditions, v1beta2.ReadyCondition) {
			ready[m.Name] = m.Spec.ProviderID
		}
	}
	running := 0
	for _, m := range machines.Items {
		if m.Status.Phase == string(clusterv1.MachinePhaseRunning) && m.Spec.ProviderID != "" && ready[m.Name] == m.Spec.ProviderID {
			running++
		} else {
			notReady(fmt.Sprintf("Machine %s (%s)", m.Name, m.Status.Phase))
		}
	}
	state := fmt.Sprintf("%d/%d Machines running; %d/%d clusters; not ready: %s", running, size.machines(),
		readyClusters, size.clusters, strings.Join(missing, ", "))
	return len(clusters.Items) == size.clusters && readyClusters == size.clusters && len(machines.Items) == size.machines() &&
		running == size.machines(), state
}

// gone reports whether no Cluster, Machine, MemCluster or MemMachine is left in ns; else it counts them. It
// reads fleet (a cache) and, once that shows none, confirms it with the API server.
func gone(ctx context.Context, fleet client.Reader, ns string) (bool, string) {
	ok, state := goneIn(ctx, fleet, ns)
	if ok {
		ok, state = goneIn(ctx, env.Client, ns)
	}
	return ok, state
}

func goneIn(ctx context.Context, r client.Reader, ns string) (bool, string) {
	lists := []client.ObjectList{&clusterv1.ClusterList{}, &clusterv1.MachineList{}, &v1beta2.MemClusterList{}, &v1beta2.MemMachineList{}}
	total, parts := 0, make([]string, 0, len(lists))
	for _, l := range lists {
		if err := r.List(ctx, l, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
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
