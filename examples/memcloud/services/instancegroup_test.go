package services_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/scaletest"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// poolEnv is a provisioned cluster network on a fresh cloud and the instance group service on it.
type poolEnv struct {
	cloud *cloud.Cloud
	group *services.InstanceGroup
}

func newPoolEnv(t *testing.T, opts ...cloud.Option) *poolEnv {
	t.Helper()
	m := newMachineEnv(t, opts...)
	lookup := services.NetworkLookupFunc(func(context.Context, string, scope.ClusterInfo) (services.ClusterNetwork, error) {
		return services.ClusterNetwork{SubnetIDs: map[v1beta2.SubnetRole]string{v1beta2.SubnetRoleWorker: m.ids[services.SubnetKey("worker")]},
			SecurityGroupID: m.ids[services.KeySecurityGroup]}, nil
	})
	g, err := services.NewInstanceGroup(m.cloud, lookup)
	require.NoError(t, err)
	return &poolEnv{cloud: m.cloud, group: g}
}

func poolScope(replicas int32) *scopetest.FakeMachinePoolScope[*v1beta2.MemMachinePool] {
	return &scopetest.FakeMachinePoolScope[*v1beta2.MemMachinePool]{
		FakeObject: scopetest.FakeObject[*v1beta2.MemMachinePool]{
			Object:            &v1beta2.MemMachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pool", Generation: 1}},
			OwnershipKeyValue: "pool-key", ClusterInfo: scope.ClusterInfo{Name: "c1", InfrastructureProvisioned: true},
		},
		PoolInfo:       scope.MachinePoolInfo{Name: "pool", Replicas: replicas},
		BootstrapValue: []byte(userData),
	}
}

// groupInstances returns the provider IDs of the live instances of the cloud's groups, sorted.
func groupInstances(c *cloud.Cloud) []string {
	var out []string
	for _, r := range c.List(cloud.KindInstance) {
		if r.Tags[cloud.TagInstanceGroup] != "" {
			out = append(out, v1beta2.ProviderID(r.ID))
		}
	}
	slices.Sort(out)
	return out
}

func TestInstanceGroupScalingScenarios(t *testing.T) {
	scaletest.RunScalingScenarios(t, func(t *testing.T) scaletest.PoolFixture[*v1beta2.MemMachinePool] {
		e := newPoolEnv(t, cloud.WithPendingGets(1))
		return scaletest.PoolFixture[*v1beta2.MemMachinePool]{
			Service: e.group, Scope: poolScope(0),
			LiveInstances: func() ([]string, error) { return groupInstances(e.cloud), nil },
			Created:       func() int { return e.cloud.Calls().Created[cloud.KindInstance] }, // counted from the env's reset
			InjectFault: func() error {
				for _, op := range []cloud.Op{cloud.VerbCreate.On(cloud.KindInstanceGroup), cloud.VerbScale.On(cloud.KindInstanceGroup)} {
					if err := e.cloud.FailNext(op, cloud.AfterChange); err != nil {
						return err
					}
				}
				return nil
			},
		}
	})
}

func TestInstanceGroup(t *testing.T) {
	ctx := t.Context()
	e := newPoolEnv(t)
	s := poolScope(3)
	res, err := e.group.Reconcile(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Len(t, s.Object.Spec.ProviderIDList, 3)
	assert.Equal(t, groupInstances(e.cloud), s.Object.Spec.ProviderIDList)
	assert.Equal(t, int32(3), s.Object.Status.Replicas)
	assert.True(t, s.Object.Status.Ready && s.Object.IsProvisioned())
	require.Len(t, s.Object.Status.Instances, 3, "per-instance status")
	for _, inst := range s.Object.Status.Instances {
		assert.Contains(t, s.Object.Spec.ProviderIDList, inst.ProviderID)
		assert.Equal(t, string(cloud.InstanceRunning), inst.State)
		assert.NotEmpty(t, inst.Address)
	}
	id, ok := s.ResourceID(services.KeyInstanceGroup)
	require.True(t, ok)
	persisted, _ := s.PersistedResourceID(services.KeyInstanceGroup)
	assert.Equal(t, id, persisted, "the group is checkpointed at once")
	data, err := e.cloud.InstanceGroupUserData(id)
	require.NoError(t, err)
	assert.Equal(t, userData, string(data), "the instances boot with the pool's bootstrap data")

	reads := s.BootstrapReads
	e.cloud.ResetCounters()
	res, err = e.group.Reconcile(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Equal(t, reads, s.BootstrapReads, "a steady state reads no bootstrap data")
	assert.Equal(t, 1, e.cloud.Calls().Total(), "and makes one cloud read")

	require.NoError(t, e.cloud.DeleteInstance(ctx, groupInstances(e.cloud)[0][len(v1beta2.ProviderIDPrefix):]))
	_, err = e.group.Reconcile(ctx, s)
	require.NoError(t, err)
	assert.Len(t, groupInstances(e.cloud), 3, "an instance deleted out of band is replaced")
	assert.Equal(t, groupInstances(e.cloud), s.Object.Spec.ProviderIDList)

	res, err = e.group.Delete(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Empty(t, groupInstances(e.cloud))
	assert.Zero(t, e.cloud.Count(cloud.KindInstanceGroup))
}

func TestInstanceGroupWaitsForTheNetwork(t *testing.T) {
	c := memcloudtest.NewCloud(t)
	lookup := services.NetworkLookupFunc(func(context.Context, string, scope.ClusterInfo) (services.ClusterNetwork, error) {
		return services.ClusterNetwork{}, nil
	})
	g, err := services.NewInstanceGroup(c, lookup)
	require.NoError(t, err)
	res, err := g.Reconcile(t.Context(), poolScope(2))
	require.NoError(t, err)
	assert.Equal(t, services.ReasonWaitingForNetwork, res.Reason)
	assert.Zero(t, c.Calls().Total(), "no cloud call")
}

func TestInstanceGroupQuotaIsTerminal(t *testing.T) {
	e := newPoolEnv(t, cloud.WithQuota(cloud.KindInstance, 2))
	_, err := e.group.Reconcile(t.Context(), poolScope(3))
	require.Error(t, err)
	assert.Equal(t, services.ReasonQuotaExceeded, step.TerminalReason(err), "%v", err)
	assert.NotContains(t, err.Error(), "SECRET-TOKEN")
	assert.Empty(t, groupInstances(e.cloud), "nothing half-created")
}
