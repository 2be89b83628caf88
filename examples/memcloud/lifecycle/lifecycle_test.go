package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/providertest/lifecycle"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/ensure"
)

var env *testenv.Environment

func TestMain(m *testing.M) { memcloudtest.TestEnv().Main(m, &env) }

// convergeTimeout is a generous bound: a run takes a few seconds; the bound only stops a test that does
// not converge.
const convergeTimeout = 90 * time.Second

type lifecycleCase struct {
	name   string
	cloud  []cloud.Option
	faults bool
}

func TestLifecycle(t *testing.T) {
	tests := []lifecycleCase{
		{name: "no faults", cloud: []cloud.Option{cloud.WithSeed(1), cloud.WithPendingGets(2)}},
	}
	// 20% of mutating cloud calls fail, half of them after the change is made; tag search misses new
	// resources for 3 calls. Several seeds; the last one fails reads too.
	for i, seed := range []uint64{7, 8, 9} {
		tests = append(tests, lifecycleCase{name: fmt.Sprintf("faults and search lag, seed %d", seed), faults: true, cloud: []cloud.Option{
			cloud.WithSeed(seed), cloud.WithPendingGets(2),
			cloud.WithFaults(cloud.FaultConfig{BeforeChange: 0.1, AfterChange: 0.1, SearchLag: 3, Reads: i == 2}),
		}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			p, err := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{Cloud: tt.cloud, PollInterval: 50 * time.Millisecond})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, p.Stop()) })
			ns := env.Namespace(t, "lifecycle")
			if tt.faults {
				// The controllers run concurrently, so the order of calls, and which of them the seeded
				// faults hit, varies: these scripted faults make sure the worst cases happen in every run.
				for _, f := range []struct {
					op   cloud.Op
					mode cloud.FaultMode
				}{
					{cloud.VerbCreate.On(cloud.KindNetwork), cloud.AfterChange},
					{cloud.VerbCreate.On(cloud.KindInstance), cloud.AfterChange},
					{cloud.VerbCreate.On(cloud.KindLoadBalancer), cloud.BeforeChange},
					{cloud.VerbRegister.On(cloud.KindLoadBalancer), cloud.AfterChange},
					{cloud.VerbDelete.On(cloud.KindInstance), cloud.AfterChange},
					{cloud.VerbDelete.On(cloud.KindSubnet), cloud.BeforeChange},
				} {
					require.NoError(t, p.Cloud.FailNext(f.op, f.mode))
				}
			}

			spec := memcloudtest.LifecycleSpec(memcloudtest.Cluster{Namespace: ns, Name: "lc", ControlPlane: 1, Workers: 3,
				FailureDomains: []string{"fd-a", "fd-b"}}, p.LeakChecker())
			spec.Timeout = convergeTimeout
			start := time.Now()
			provisioned := false
			spec.OnProvisioned = func(ctx context.Context, l *lifecycle.Driver) error {
				provisioned = true
				t.Logf("provisioned in %s", time.Since(start).Round(time.Millisecond))
				assertContract(t, ctx, l)
				assertCloud(t, ctx, p.Cloud, l)
				owner := cloud.OwnerTagValue(ensure.TagOwnershipKey)
				assert.Empty(t, p.Cloud.Duplicates(owner, ensure.TagResourceKey), "no cloud resource was created twice")
				if tt.faults {
					assert.GreaterOrEqual(t, p.Cloud.Calls().Faults, 4, "faults were injected")
					t.Logf("faults injected: %d of %d calls", p.Cloud.Calls().Faults, p.Cloud.Calls().Total())
				}
				start = time.Now()
				return nil
			}
			lifecycle.Run(t, env.Client, spec) // fails on any leak or duplicate left after the delete
			t.Logf("deleted in %s", time.Since(start).Round(time.Millisecond))

			require.True(t, provisioned, "OnProvisioned ran")
			assert.Empty(t, p.Cloud.All(), "the cloud is empty")
			assert.Equal(t, 1+2+1+1+4, p.Cloud.TotalCreated(), "network, 2 subnets, security group, load balancer, 4 instances: each created once")
		})
	}
}

// assertContract checks the live objects against the contract, and that no bootstrap data leaked into them
// or into events.
func assertContract(t *testing.T, ctx context.Context, l *lifecycle.Driver) {
	t.Helper()
	mc, err := l.InfraCluster(ctx)
	require.NoError(t, err)
	providertest.AssertObjectConformance(t, mc, lint.KindInfraCluster, contract.V1Beta2)
	ep, err := contract.InfraCluster(contract.V1Beta2).ControlPlaneEndpoint().Get(mc)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(ep.Host, "."+cloud.DNSSuffix), ep.Host)
	fds, err := contract.InfraCluster(contract.V1Beta2).FailureDomains().Get(mc)
	require.NoError(t, err)
	assert.Len(t, fds, 2)

	mms, err := l.InfraMachines(ctx)
	require.NoError(t, err)
	f := contract.InfraMachine(contract.V1Beta2)
	for _, mm := range mms {
		providertest.AssertObjectConformance(t, mm, lint.KindInfraMachine, contract.V1Beta2)
		pid, err := f.ProviderID().Get(mm)
		require.NoError(t, err)
		assert.Regexp(t, `^memcloud://i-[0-9a-f]{8}$`, pid)
		addrs, err := f.Addresses().Get(mm)
		require.NoError(t, err)
		assert.NotEmpty(t, addrs, mm.GetName())
		fd, err := f.FailureDomain().Get(mm)
		require.NoError(t, err)
		assert.Contains(t, []string{"fd-a", "fd-b"}, fd)
	}
	for _, name := range l.MachineNames() {
		s := &corev1.Secret{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: l.Spec().Namespace, Name: name}, s))
		providertest.AssertBootstrapSecretConformance(t, s, nil)
	}
	events := &corev1.EventList{}
	require.NoError(t, env.Client.List(ctx, events, client.InNamespace(l.Spec().Namespace)))
	for _, o := range []any{mc, mms, events} {
		b, err := json.Marshal(o)
		require.NoError(t, err)
		assert.NotContains(t, string(b), memcloudtest.BootstrapTokenMarker, "bootstrap data never appears in objects or events")
	}
}

// assertCloud checks the cloud resources: one of each cluster resource, one instance per machine with its
// bootstrap data as user data, the control plane registered with the load balancer.
func assertCloud(t *testing.T, ctx context.Context, c *cloud.Cloud, l *lifecycle.Driver) {
	t.Helper()
	spec := l.Spec()
	report := c.Report(cloud.OwnerTagValue(services.TagCluster))
	assert.Len(t, report.ByOwner[spec.Namespace+"/"+spec.ClusterName], 9, report.String())
	assert.Empty(t, report.Unowned)
	lbs := c.List(cloud.KindLoadBalancer)
	require.Len(t, lbs, 1)
	mms, err := l.InfraMachines(ctx)
	require.NoError(t, err)
	var cp []string
	for _, mm := range mms {
		pid, err := contract.InfraMachine(contract.V1Beta2).ProviderID().Get(mm)
		require.NoError(t, err)
		id, err := v1beta2.InstanceIDFromProviderID(pid)
		require.NoError(t, err)
		data, err := c.InstanceUserData(id)
		require.NoError(t, err)
		controlPlane := strings.Contains(mm.GetName(), "-cp-")
		assert.Equal(t, string(spec.BootstrapData(mm.GetName(), controlPlane)), string(data), "user data is the bootstrap data")
		if controlPlane {
			cp = append(cp, id)
		}
	}
	// GetLoadBalancer is an API call: no fault while the test reads the targets.
	saved := c.Faults()
	require.NoError(t, c.SetFaults(cloud.FaultConfig{}))
	defer func() { require.NoError(t, c.SetFaults(saved)) }()
	lb, err := c.GetLoadBalancer(ctx, lbs[0].ID)
	require.NoError(t, err)
	assert.Equal(t, cp, lb.Targets, "control plane instances are the load balancer's targets")
}
