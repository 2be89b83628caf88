package services_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// The dependencies of the cases are the in-memory cloud itself: memcloud has no SDK to mock.

// clusterService builds a cluster service on a new cloud, for servicetest.
func clusterService[S reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]]](build func(*cloud.Cloud) (S, error)) func(*testing.T) (reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]], *cloud.Cloud) {
	return func(t *testing.T) (reconcile.Service[scope.ClusterScoper[*v1beta2.MemCluster]], *cloud.Cloud) {
		c := memcloudtest.NewCloud(t)
		svc, err := build(c)
		require.NoError(t, err)
		return svc, c
	}
}

func noCloudCall(t *testing.T, _ clusterFake, c *cloud.Cloud) {
	assert.Zero(t, c.Calls().Total(), "no cloud call")
}

func TestNetworkCases(t *testing.T) {
	badCIDR := func() clusterFake {
		return clusterScope(&v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"},
			Spec: v1beta2.MemClusterSpec{Network: v1beta2.NetworkSpec{CIDR: "10.0.0.0/33"}}})
	}
	servicetest.RunClusterCases(t, clusterService(services.NewNetwork), []servicetest.ClusterCase[*v1beta2.MemCluster, *cloud.Cloud]{
		{
			Name:  "creates the network with the defaulted CIDR and records it at once",
			Scope: clusterScope(nil),
			Want:  servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s clusterFake, c *cloud.Cloud) {
				require.Equal(t, 1, c.Count(cloud.KindNetwork))
				id := c.List(cloud.KindNetwork)[0].ID
				assert.Equal(t, map[string]string{services.KeyNetwork: id}, s.Object.Status.Resources)
				n, err := c.GetNetwork(context.Background(), id)
				require.NoError(t, err)
				assert.Equal(t, "10.0.0.0/16", n.CIDR, "defaulted as the webhook does")
				assert.Equal(t, "ns/c1", n.Tags[services.TagCluster])
				assert.Empty(t, s.Object.Spec.Network, "the spec is defaulted by the webhook, not by the service")
			},
		},
		{
			Name: "rejects a bad CIDR before any cloud call", Scope: badCIDR(), Check: noCloudCall,
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonInvalidParameters, ErrorContains: `cidr "10.0.0.0/33"`, Unchanged: true},
		},
		{
			Name:  "a lost create response is retried",
			Scope: clusterScope(nil),
			Setup: func(t *testing.T, _ clusterFake, c *cloud.Cloud) {
				require.NoError(t, c.FailNext(cloud.VerbCreate.On(cloud.KindNetwork), cloud.AfterChange))
			},
			Want: servicetest.Outcome{Class: reconcile.ClassTransient, ErrorIs: cloud.ErrInjected, Unchanged: true},
		},
		{
			Name:  "a throttled call is requeued after the cloud's hint, not counted as a failure",
			Scope: clusterScope(nil),
			Setup: func(t *testing.T, _ clusterFake, c *cloud.Cloud) {
				require.NoError(t, c.SetRateLimit(0.01, 1))
				_, err := c.GetNetwork(context.Background(), "net-none") // takes the only token
				require.ErrorIs(t, err, cloud.ErrNotFound)
			},
			Want: servicetest.Outcome{Class: reconcile.ClassThrottled, Reason: conditions.ReasonThrottled, ErrorIs: cloud.ErrThrottled,
				RequeueAfter: reconcile.ThrottleBackoffMax, Unchanged: true},
		},
		{
			Name: "deleting a network never created is done at once", Scope: clusterScope(nil), Delete: true,
			Want: servicetest.Outcome{Result: step.Result{Done: true}, Unchanged: true},
		},
	}...)

	waiting := func() servicetest.ClusterCase[*v1beta2.MemCluster, *cloud.Cloud] {
		return servicetest.ClusterCase[*v1beta2.MemCluster, *cloud.Cloud]{
			Name: "waits for the network", Scope: clusterScope(nil), Check: noCloudCall,
			Want: servicetest.Outcome{Result: step.Result{Reason: services.ReasonWaitingForNetwork,
				Message: "the network is not recorded yet"}, Unchanged: true},
		}
	}
	t.Run("Subnets", func(t *testing.T) { servicetest.RunClusterCases(t, clusterService(services.NewSubnets), waiting()) })
	t.Run("SecurityGroup", func(t *testing.T) {
		servicetest.RunClusterCases(t, clusterService(services.NewSecurityGroup), waiting())
	})
	t.Run("LoadBalancer", func(t *testing.T) {
		servicetest.RunClusterCases(t, clusterService(services.NewLoadBalancer), waiting())
	})
}

func TestInstanceCases(t *testing.T) {
	newService := func(t *testing.T) (reconcile.Service[scope.MachineScoper[*v1beta2.MemMachine]], *machineEnv) {
		e := newMachineEnv(t)
		return e.instance, e
	}
	provisioned := func(targets int) func(*testing.T, machineFake, *machineEnv) {
		return func(t *testing.T, s machineFake, e *machineEnv) {
			require.Equal(t, 1, e.cloud.Count(cloud.KindInstance))
			inst, err := e.cloud.GetInstance(context.Background(), e.cloud.List(cloud.KindInstance)[0].ID)
			require.NoError(t, err)
			mm := s.Object
			assert.Equal(t, v1beta2.ProviderID(inst.ID), mm.Spec.ProviderID)
			assert.Equal(t, []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: inst.PrivateIP}, {Type: contract.MachineHostName, Address: mm.Name}}, mm.Status.Addresses)
			assert.Equal(t, "fd-a", mm.Status.FailureDomain)
			assert.True(t, mm.IsProvisioned())
			assert.Equal(t, string(cloud.InstanceRunning), mm.Status.InstanceState)
			assert.Equal(t, mm.Generation, mm.Status.ObservedGeneration)
			lb, err := e.cloud.GetLoadBalancer(context.Background(), e.ids[services.KeyLoadBalancer])
			require.NoError(t, err)
			assert.Len(t, lb.Targets, targets, "only control plane instances are load balancer targets")
		}
	}
	noInstance := func(t *testing.T, _ machineFake, e *machineEnv) { assert.Zero(t, e.cloud.Count(cloud.KindInstance)) }
	servicetest.RunMachineCases(t, newService, []servicetest.MachineCase[*v1beta2.MemMachine, *machineEnv]{
		{
			Name: "provisions a worker", Scope: machineScope("m-0", false, []byte(userData)),
			Want: servicetest.Outcome{Result: step.Result{Done: true}}, Check: provisioned(0),
		},
		{
			Name: "provisions a control plane machine behind the load balancer", Scope: machineScope("m-0", true, []byte(userData)),
			Want: servicetest.Outcome{Result: step.Result{Done: true}}, Check: provisioned(1),
		},
		{
			Name: "bootstrap data not ready: no instance", Scope: machineScope("m-0", false, nil), Check: noInstance,
			Want: servicetest.Outcome{Class: reconcile.ClassTransient, ErrorIs: scope.ErrBootstrapDataNotReady, Unchanged: true},
		},
		{
			Name: "a lost create response is retried and records nothing", Scope: machineScope("m-0", false, []byte(userData)),
			Setup: func(t *testing.T, _ machineFake, e *machineEnv) {
				require.NoError(t, e.cloud.FailNext(cloud.VerbCreate.On(cloud.KindInstance), cloud.AfterChange))
			},
			Want: servicetest.Outcome{Class: reconcile.ClassTransient, ErrorIs: cloud.ErrInjected, Unchanged: true},
		},
		{
			Name: "deleting a machine that has no instance is done", Scope: machineScope("m-0", false, []byte(userData)), Delete: true,
			Want: servicetest.Outcome{Result: step.Result{Done: true}, Unchanged: true},
		},
	}...)
}
