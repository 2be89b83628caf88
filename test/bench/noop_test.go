package bench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// TestNoOpReconcileCost provisions a worker and a control-plane MemMachine with memcloud's manager on a
// real API server, every HTTP request of the manager counted, then makes each reconcile again without
// changing anything it reads. A no-op reconcile of a provisioned machine sends no API request of any kind
// (its reads are served by the manager's cache, its bootstrap data is not read, nothing is written) and
// reads the cloud once per resource it tracks: the instance; a control plane also reads the API server
// load balancer its instance is registered with. No informer on Secrets is ever started.
func TestNoOpReconcileCost(t *testing.T) {
	ctx := t.Context()
	env, p, rc := startCountedProvider(t)

	f := newFleet(ctx, t, env, p.Provider, 1)
	cp, err := f.newMachine(ctx, clusterName+"-cp-0", true)
	require.NoError(t, err)
	f.machines = append(f.machines, cp)
	f.createMemMachines(ctx, t)
	f.waitProvisioned(ctx, t)
	waitIdle(ctx, t)

	for _, r := range rc.take() {
		if method, path, _ := strings.Cut(r, " "); method == "GET" && strings.HasSuffix(path, "/secrets") {
			t.Errorf("the manager listed or watched Secrets (%s): bootstrap data must be read by name, uncached", r)
		}
	}

	for _, tc := range []struct {
		name       string
		machine    string
		wantReads  map[cloud.Op]int
		cloudReads int
	}{
		{name: "worker", machine: f.machines[0].GetName(), cloudReads: 1,
			wantReads: map[cloud.Op]int{cloud.VerbGet.On(cloud.KindInstance): 1}},
		{name: "control plane", machine: cp.GetName(), cloudReads: 2,
			wantReads: map[cloud.Op]int{cloud.VerbGet.On(cloud.KindInstance): 1, cloud.VerbGet.On(cloud.KindLoadBalancer): 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.Cloud.ResetCounters()
			rc.take()
			before := reconciles(t, "memmachine")
			// A change the reconcile does not read: it makes the controller reconcile the machine once.
			mm := &v1beta2.MemMachine{}
			mm.Namespace, mm.Name = f.ns, tc.machine
			patch := []byte(`{"metadata":{"annotations":{"bench.capkit.io/poke":"` + time.Now().Format(time.RFC3339Nano) + `"}}}`)
			require.NoError(t, env.Client.Patch(ctx, mm, client.RawPatch(types.MergePatchType, patch)))
			poll(ctx, t, time.Minute, "the reconcile of "+tc.machine, func() (bool, error) {
				return reconciles(t, "memmachine") > before, nil
			})
			waitIdle(ctx, t)
			n := reconciles(t, "memmachine") - before
			calls := p.Cloud.Calls()
			reqs := rc.take()
			assert.Empty(t, reqs, "API requests of %v no-op reconcile(s)", n)
			assert.Zero(t, calls.Mutations, "cloud writes")
			assert.Equal(t, tc.cloudReads*int(n), calls.Reads, "cloud reads of %v reconcile(s): %v", n, calls.Calls)
			for op, want := range tc.wantReads {
				assert.Equal(t, want*int(n), calls.Calls[op], "%s", op)
			}
			t.Logf("%s: %v reconcile(s), %d API requests, %d cloud reads %v", tc.name, n, len(reqs), calls.Reads, calls.Calls)
		})
	}
}

// reconciles returns how many reconciles controller has finished, from controller-runtime's metrics.
func reconciles(t testing.TB, controller string) float64 {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	require.NoError(t, err)
	total := 0.0
	for _, fam := range families {
		if fam.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == controller {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}
