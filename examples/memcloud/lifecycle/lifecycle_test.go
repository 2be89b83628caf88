package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/capisim"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/reconcile"
)

var env *providertest.Environment

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	e, err := capisim.NewEnvironment()
	if err != nil {
		fmt.Fprintf(os.Stderr, "lifecycle: %v\n", err)
		os.Exit(1)
	}
	env = e
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "lifecycle: %v\n", err)
	}
	os.Exit(code)
}

// Generous bounds: a run takes a few seconds; the bound only stops a test that does not converge.
const (
	convergeTimeout = 90 * time.Second
	tick            = 50 * time.Millisecond
)

func TestLifecycle(t *testing.T) {
	tests := []struct {
		name   string
		cloud  []cloud.Option
		faults bool
	}{
		{name: "no faults", cloud: []cloud.Option{cloud.WithSeed(1), cloud.WithPendingGets(2)}},
	}
	// 20% of mutating cloud calls fail, half of them after the change is made; tag search misses new
	// resources for 3 calls. Several seeds; the last one fails reads too.
	for i, seed := range []uint64{7, 8, 9} {
		tests = append(tests, struct {
			name   string
			cloud  []cloud.Option
			faults bool
		}{name: fmt.Sprintf("faults and search lag, seed %d", seed), faults: true, cloud: []cloud.Option{
			cloud.WithSeed(seed), cloud.WithPendingGets(2),
			cloud.WithFaults(cloud.FaultConfig{BeforeChange: 0.1, AfterChange: 0.1, SearchLag: 3, Reads: i == 2}),
		}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			p, err := capisim.StartProvider(ctx, env, capisim.Options{Cloud: tt.cloud, PollInterval: 50 * time.Millisecond})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, p.Stop()) })
			ns, err := env.CreateNamespace(ctx, "lifecycle")
			require.NoError(t, err)
			d, err := capisim.New(env.Client, capisim.ClusterSpec{Namespace: ns, Name: "lc", ControlPlane: 1, Workers: 3,
				FailureDomains: []string{"fd-a", "fd-b"}})
			require.NoError(t, err)

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
			start := time.Now()
			require.NoError(t, d.Create(ctx))
			require.Eventually(t, func() bool {
				if err := d.Sync(ctx); err != nil {
					return false
				}
				ok, err := d.Provisioned(ctx)
				return err == nil && ok
			}, convergeTimeout, tick, "the cluster did not get provisioned")
			t.Logf("provisioned in %s", time.Since(start).Round(time.Millisecond))

			assertContract(t, ns, d)
			assertCloud(t, p.Cloud, ns, d)
			owner := cloud.OwnerTagValue(reconcile.TagOwnershipKey)
			assert.Empty(t, p.Cloud.Duplicates(owner, reconcile.TagResourceKey), "no cloud resource was created twice")
			if tt.faults {
				assert.GreaterOrEqual(t, p.Cloud.Calls().Faults, 4, "faults were injected")
				t.Logf("faults injected: %d of %d calls", p.Cloud.Calls().Faults, p.Cloud.Calls().Total())
			}

			start = time.Now()
			require.NoError(t, d.Delete(ctx))
			require.Eventually(t, func() bool {
				if err := d.Sync(ctx); err != nil {
					return false
				}
				gone, err := d.Gone(ctx)
				return err == nil && gone
			}, convergeTimeout, tick, "the cluster was not deleted")
			t.Logf("deleted in %s", time.Since(start).Round(time.Millisecond))

			assert.Empty(t, p.Cloud.Leaks(cloud.OwnerTagValue(services.TagCluster), ns+"/lc"), "nothing leaked")
			assert.Empty(t, p.Cloud.All(), "the cloud is empty: %s", p.Cloud.Report(cloud.OwnerTagValue(services.TagCluster)))
			assert.Empty(t, p.Cloud.Duplicates(owner, reconcile.TagResourceKey))
			assert.Equal(t, 1+2+1+1+4, p.Cloud.TotalCreated(), "network, 2 subnets, security group, load balancer, 4 instances: each created once")
		})
	}
}

func get(t *testing.T, ns, kind, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: v1beta2.GroupName, Version: "v1beta2", Kind: kind})
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u))
	return u
}

// assertContract checks the live objects against the contract, and that no bootstrap data leaked into them.
func assertContract(t *testing.T, ns string, d *capisim.Driver) {
	t.Helper()
	mc := get(t, ns, "MemCluster", "lc")
	assert.Empty(t, contract.CheckInfraCluster(mc, contract.V1Beta2), "MemCluster")
	ep, err := contract.InfraCluster(contract.V1Beta2).ControlPlaneEndpoint().Get(mc)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(ep.Host, "."+cloud.DNSSuffix), ep.Host)
	fds, err := contract.InfraCluster(contract.V1Beta2).FailureDomains().Get(mc)
	require.NoError(t, err)
	assert.Len(t, fds, 2)

	objs := []*unstructured.Unstructured{mc}
	for _, name := range d.MachineNames() {
		mm := get(t, ns, "MemMachine", name)
		objs = append(objs, mm)
		assert.Empty(t, contract.CheckInfraMachine(mm, contract.V1Beta2), name)
		f := contract.InfraMachine(contract.V1Beta2)
		pid, err := f.ProviderID().Get(mm)
		require.NoError(t, err)
		assert.Regexp(t, `^memcloud://i-[0-9a-f]{8}$`, pid)
		addrs, err := f.Addresses().Get(mm)
		require.NoError(t, err)
		assert.NotEmpty(t, addrs, name)
		fd, err := f.FailureDomain().Get(mm)
		require.NoError(t, err)
		assert.Contains(t, []string{"fd-a", "fd-b"}, fd)
	}
	events := &corev1.EventList{}
	require.NoError(t, env.Client.List(context.Background(), events, client.InNamespace(ns)))
	for _, o := range append(objs, toUnstructured(t, events)) {
		b, err := json.Marshal(o)
		require.NoError(t, err)
		assert.NotContains(t, string(b), capisim.BootstrapTokenMarker, "bootstrap data never appears in objects or events")
	}
}

func toUnstructured(t *testing.T, obj any) *unstructured.Unstructured {
	t.Helper()
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: map[string]any{}}
	require.NoError(t, json.Unmarshal(b, &u.Object))
	return u
}

// assertCloud checks the cloud resources: one of each cluster resource, one instance per machine in the
// subnet of its role with its bootstrap data, the control plane registered with the load balancer.
func assertCloud(t *testing.T, c *cloud.Cloud, ns string, d *capisim.Driver) {
	t.Helper()
	report := c.Report(cloud.OwnerTagValue(services.TagCluster))
	assert.Len(t, report.ByOwner[ns+"/lc"], 9, report.String())
	assert.Empty(t, report.Unowned)
	lbs := c.List(cloud.KindLoadBalancer)
	require.Len(t, lbs, 1)
	var cp []string
	for _, name := range d.MachineNames() {
		mm := &v1beta2.MemMachine{}
		require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, mm))
		id, err := v1beta2.InstanceIDFromProviderID(mm.Spec.ProviderID)
		require.NoError(t, err)
		data, err := c.InstanceUserData(id)
		require.NoError(t, err)
		assert.Equal(t, string(capisim.BootstrapData("lc", name, strings.Contains(name, "-cp-"))), string(data))
		if strings.Contains(name, "-cp-") {
			cp = append(cp, id)
		}
	}
	// GetLoadBalancer is an API call: no fault while the test reads the targets.
	saved := c.Faults()
	require.NoError(t, c.SetFaults(cloud.FaultConfig{}))
	defer func() { require.NoError(t, c.SetFaults(saved)) }()
	lb, err := c.GetLoadBalancer(context.Background(), lbs[0].ID)
	require.NoError(t, err)
	assert.Equal(t, cp, lb.Targets, "control plane instances are the load balancer's targets")
}
