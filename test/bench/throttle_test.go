package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/ratelimit"
	"github.com/capkit/capkit/reconcile/ensure"
)

// Rate limit of the fleet test's cloud, a fraction of what 200 machines created at once ask for (about 4
// calls each, 800 calls, in well under a second when unlimited).
const (
	fleetMachines    = 200
	cloudPerSecond   = 50
	cloudBurst       = 10
	limiterPerSecond = 45 // capkit's limiter just under the cloud's limit
)

// TestFleetUnderCloudRateLimit provisions 200 worker MemMachines at once against a cloud limited to 50
// calls a second. Without capkit's limiter the cloud throttles the fleet, and the reconcilers back off
// (step.Throttled); with it the calls are paced under the limit. Either way every machine converges,
// the throttled calls and the reconciles per machine stay bounded (no hot loop), and the figures are logged.
func TestFleetUnderCloudRateLimit(t *testing.T) {
	ctx := context.Background()
	// An API server of its own: the package's other tests leave providers running on the shared one, and a
	// second provider (with another cloud) would reconcile this fleet too.
	env, err := memcloudtest.TestEnv().NewEnvironment()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, env.Stop()) })
	for _, tc := range []struct {
		name    string
		limiter bool
		// maxThrottledPerMachine and maxReconcilesPerMachine bound what the run may cost; measured figures
		// are logged, the bounds leave room for a slow machine.
		maxThrottledPerMachine, maxReconcilesPerMachine float64
	}{
		{name: "throttled by the cloud", maxThrottledPerMachine: 8, maxReconcilesPerMachine: 6},
		{name: "paced by capkit's limiter", limiter: true, maxThrottledPerMachine: 0.05, maxReconcilesPerMachine: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := cloud.New(cloud.WithSeed(31), cloud.WithRateLimit(cloudPerSecond, cloudBurst))
			require.NoError(t, err)
			o := memcloudtest.Options{Shared: cl}
			if tc.limiter {
				o.RateLimiter, err = ratelimit.New(limiterPerSecond, cloudBurst)
				require.NoError(t, err)
			}
			p, err := memcloudtest.StartProvider(ctx, env, o)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, p.Stop()) })
			f := newFleet(ctx, t, env, p, fleetMachines)

			before, reconcilesBefore := cl.Calls(), memMachineReconciles(t)
			start := time.Now()
			f.createMemMachines(ctx, t)
			f.waitProvisioned(ctx, t)
			elapsed := time.Since(start)
			waitIdle(ctx, t)
			after := cl.Calls()
			throttled := float64(after.Throttled-before.Throttled) / fleetMachines
			calls := float64(after.Total()-before.Total()) / fleetMachines
			reconciles := (memMachineReconciles(t) - reconcilesBefore) / fleetMachines
			t.Logf("%d machines in %s (%.0f machines/s); per machine: %.2f cloud calls, %.2f throttled, %.2f reconciles",
				fleetMachines, elapsed.Round(time.Millisecond), fleetMachines/elapsed.Seconds(), calls, throttled, reconciles)
			assert.LessOrEqual(t, throttled, tc.maxThrottledPerMachine, "throttled calls per machine")
			assert.LessOrEqual(t, reconciles, tc.maxReconcilesPerMachine, "reconciles per machine: no hot loop")
			assert.Equal(t, fleetMachines, cl.Count(cloud.KindInstance), "one instance per machine")
			assert.Empty(t, cl.Duplicates(cloud.OwnerTagValue(ensure.TagOwnershipKey), ensure.TagResourceKey), "nothing twice")
			if !tc.limiter {
				assert.Positive(t, after.Throttled-before.Throttled, "the cloud's limit was reached")
			}
			// Clean up while the provider runs (the next run's provider must not see this fleet), without the
			// limit: the delete is not what this test measures.
			require.NoError(t, cl.SetRateLimit(0, 0))
			f.deleteAll(ctx, t)
			assert.Empty(t, cl.All(), "the fleet's delete leaves nothing")
			// The provider stops idle: the work queue metrics are shared by the next run's provider, whose
			// waitIdle would see the depth of a queue stopped with items in it.
			waitIdle(ctx, t)
		})
	}
}

// deleteAll deletes the fleet's MemMachines and MemCluster and waits until they are gone.
func (f *fleet) deleteAll(ctx context.Context, t *testing.T) {
	t.Helper()
	require.NoError(t, f.env.Client.DeleteAllOf(ctx, &v1beta2.MemMachine{}, client.InNamespace(f.ns)))
	require.NoError(t, f.env.Client.DeleteAllOf(ctx, &v1beta2.MemCluster{}, client.InNamespace(f.ns)))
	poll(ctx, t, 5*time.Minute, "the fleet deleted", func() (bool, error) {
		mms, mcs := &v1beta2.MemMachineList{}, &v1beta2.MemClusterList{}
		if err := f.env.Client.List(ctx, mms, client.InNamespace(f.ns)); err != nil {
			return false, err
		}
		err := f.env.Client.List(ctx, mcs, client.InNamespace(f.ns))
		return len(mms.Items) == 0 && len(mcs.Items) == 0, err
	})
}

// memMachineReconciles returns how many reconciles the MemMachine controllers ran so far.
func memMachineReconciles(t *testing.T) float64 {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	require.NoError(t, err)
	n := 0.0
	for _, fam := range families {
		if fam.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "memmachine" {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}
