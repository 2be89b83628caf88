package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/providertest/testenv"
)

// startup is what a manager's start on a cloud with provisioned machines cost.
type startup struct {
	machines, clusters int
	// resources is what the no-op reconciles must read: each instance, the load balancer of each control
	// plane machine, and each resource a MemCluster records.
	resources int
	// elapsed is the time from the start until every machine has had its reconcile and the manager is idle.
	elapsed time.Duration
	// lists counts the informers' lists and watches, discovery the REST mapper's discovery of the API
	// groups they need (once per process); other is every other request.
	lists     int
	discovery []string
	other     []string
	// reads and mutations are the cloud calls.
	reads, mutations int
}

// restartMeasured stops p once it is idle, and starts another on the same cloud, as a provider's pod
// replaced by a new one with every machine provisioned: it waits until each capkit MemMachine's instance has
// been read (each machine reconciled) and the manager is idle, and returns the new provider and what the
// start cost. The new provider is stopped when owner ends.
func restartMeasured(ctx context.Context, tb, owner testing.TB, env *testenv.Environment, p *countedProvider, rc *requestCounter) (*countedProvider, startup) {
	tb.Helper()
	waitIdle(ctx, tb)
	must(tb, p.Stop())
	var st startup
	selector := client.MatchingLabels{contract.WatchFilterLabel: capkitFleet}
	machines, clusters := &v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}
	must(tb, env.Client.List(ctx, machines, selector))
	must(tb, env.Client.List(ctx, clusters, selector))
	st.machines, st.clusters = len(machines.Items), len(clusters.Items)
	st.resources = st.machines
	for i := range machines.Items {
		mm := &machines.Items[i]
		if !mm.IsProvisioned() {
			tb.Fatalf("MemMachine %s/%s is not provisioned before the restart", mm.Namespace, mm.Name)
		}
		if _, cp := mm.Labels[contract.ControlPlaneLabel]; cp {
			st.resources++
		}
	}
	for i := range clusters.Items {
		st.resources += len(clusters.Items[i].Status.Resources)
	}

	cl := p.Cloud
	cl.ResetCounters()
	rc.take()
	instanceReads := cloud.VerbGet.On(cloud.KindInstance)
	start := time.Now()
	np := startCountedOn(tb, owner, env, cl, rc)
	poll(ctx, tb, max(5*time.Minute, time.Duration(st.machines)*10*time.Millisecond), "every machine reconciled after the restart", func() (bool, error) {
		return cl.Calls().Calls[instanceReads] >= st.machines, nil
	})
	waitIdle(ctx, tb)
	st.elapsed = time.Since(start)
	calls := cl.Calls()
	st.reads, st.mutations = calls.Reads, calls.Mutations
	for _, r := range rc.take() {
		switch {
		case isListOrWatch(r):
			st.lists++
		case isDiscovery(r):
			st.discovery = append(st.discovery, r)
		default:
			st.other = append(st.other, r)
		}
	}
	return np, st
}

// TestStartupWithProvisionedFleet restarts memcloud's manager on a cloud with 100 provisioned machines (make
// bench-fleet-10k does it with 11,000): the new manager reconciles every machine with no API request but its
// informers' lists and watches, no cloud write, and one cloud read per resource (each instance, and the
// network, subnets, security group and load balancer of each MemCluster).
func TestStartupWithProvisionedFleet(t *testing.T) {
	ctx := t.Context()
	// An API server of its own: the fleets the package's other tests leave on the shared one have their
	// instances in the clouds of providers that are gone.
	env, err := memcloudtest.TestEnv().NewEnvironment()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, env.Stop()) })
	cl, err := cloud.New()
	require.NoError(t, err)
	rc := &requestCounter{}
	p := startCountedOn(t, t, env, cl, rc)
	const n = 100
	f := newFleet(ctx, t, env, p.Provider, n)
	f.createMemMachines(ctx, t)
	f.waitProvisioned(ctx, t)

	_, st := restartMeasured(ctx, t, t, env, p, rc)
	t.Logf("start-up with %d machines and %d MemClusters: %s, %d lists and watches, %d discovery requests %v, %d other requests, %d cloud reads (%d resources), %d cloud writes",
		st.machines, st.clusters, st.elapsed.Round(time.Millisecond), st.lists, len(st.discovery), st.discovery, len(st.other), st.reads, st.resources, st.mutations)
	assert.Equal(t, n, st.machines)
	assert.Equal(t, 1, st.clusters)
	assert.Empty(t, st.other, "requests that are not an informer's list or watch")
	assert.NotZero(t, st.lists, "the informers' lists and watches are counted")
	assert.LessOrEqual(t, len(st.discovery), 4, "discovery requests: %v", st.discovery)
	assert.Zero(t, st.mutations, "cloud writes")
	assert.Equal(t, st.resources, st.reads, "cloud reads: one per resource")
}
