package services_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// The deps of the cases are the in-memory cloud itself: memcloud has no SDK to mock.

func TestClusterServiceCases(t *testing.T) {
	// cur is the cloud of the running case, for the expected states that name its IDs.
	var cur *cloud.Cloud
	newService := func(build func(*cloud.Cloud, ...services.Option) (reconcile.Service[scope.ClusterScoper], error)) func(*gomock.Controller) (reconcile.Service[scope.ClusterScoper], *cloud.Cloud) {
		return func(*gomock.Controller) (reconcile.Service[scope.ClusterScoper], *cloud.Cloud) {
			cur = newCloud(t)
			svc, err := build(cur, services.WithPollInterval(poll))
			require.NoError(t, err)
			return svc, cur
		}
	}
	network := newService(func(c *cloud.Cloud, o ...services.Option) (reconcile.Service[scope.ClusterScoper], error) {
		return services.NewNetwork(c, o...)
	})
	noCloudCall := func(t *testing.T, _ providertest.ScopeState, c *cloud.Cloud) {
		assert.Zero(t, c.Calls().Total(), "no cloud call")
	}
	badCIDR := clusterState(&v1beta2.MemCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1"},
		Spec: v1beta2.MemClusterSpec{Network: v1beta2.NetworkSpec{CIDR: "10.0.0.0/33"}}})

	providertest.RunClusterServiceCases(t, network,
		providertest.ClusterCase[*cloud.Cloud]{
			Name:  "creates the network with the defaulted CIDR and records it at once",
			Given: clusterState(nil),
			Want: providertest.Outcome{Result: reconcile.Result{Done: true}, Checkpoints: 1,
				State: func(s *providertest.ScopeState) {
					s.ResourceIDs[services.KeyNetwork] = cur.List(cloud.KindNetwork)[0].ID
				}},
			Verify: func(t *testing.T, _ providertest.ScopeState, c *cloud.Cloud) {
				require.Equal(t, 1, c.Count(cloud.KindNetwork))
				n, err := c.GetNetwork(context.Background(), c.List(cloud.KindNetwork)[0].ID)
				require.NoError(t, err)
				assert.Equal(t, "10.0.0.0/16", n.CIDR, "defaulted as the webhook does")
				assert.Equal(t, "ns/c1", n.Tags[services.TagCluster])
			},
		},
		providertest.ClusterCase[*cloud.Cloud]{
			Name: "rejects a bad CIDR before any cloud call", Given: badCIDR, Verify: noCloudCall,
			Want: providertest.Outcome{Error: providertest.Terminal, Reason: reconcile.ReasonInvalidParameters, ErrorContains: `cidr "10.0.0.0/33"`},
		},
		providertest.ClusterCase[*cloud.Cloud]{
			Name: "deleting a network never created is done at once", Given: clusterState(nil), Delete: true,
			Want: providertest.Outcome{Result: reconcile.Result{Done: true}},
		},
	)

	waiting := providertest.ClusterCase[*cloud.Cloud]{
		Name: "waits for the network", Given: clusterState(nil), Verify: noCloudCall,
		Want: providertest.Outcome{Result: reconcile.Result{Reason: services.ReasonWaitingForNetwork,
			Message: "the network is not recorded yet", RequeueAfter: poll}},
	}
	for name, build := range map[string]func(*cloud.Cloud, ...services.Option) (reconcile.Service[scope.ClusterScoper], error){
		"Subnets": func(c *cloud.Cloud, o ...services.Option) (reconcile.Service[scope.ClusterScoper], error) {
			return services.NewSubnets(c, o...)
		},
		"SecurityGroup": func(c *cloud.Cloud, o ...services.Option) (reconcile.Service[scope.ClusterScoper], error) {
			return services.NewSecurityGroup(c, o...)
		},
		"LoadBalancer": func(c *cloud.Cloud, o ...services.Option) (reconcile.Service[scope.ClusterScoper], error) {
			return services.NewLoadBalancer(c, o...)
		},
	} {
		t.Run(name, func(t *testing.T) { providertest.RunClusterServiceCases(t, newService(build), waiting) })
	}
}

func TestInstanceServiceCases(t *testing.T) {
	var cur *machineEnv
	newService := func(*gomock.Controller) (reconcile.Service[scope.MachineScoper], *machineEnv) {
		cur = newMachineEnv(t)
		return cur.instance, cur
	}
	provisioned := func(controlPlane bool) func(s *providertest.ScopeState) {
		return func(s *providertest.ScopeState) {
			inst := cur.cloud.List(cloud.KindInstance)[0]
			s.ProviderID = v1beta2.ProviderID(inst.ID)
			got, err := cur.cloud.GetInstance(context.Background(), inst.ID)
			require.NoError(t, err)
			s.Addresses = []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: got.PrivateIP}, {Type: contract.MachineHostName, Address: s.Name}}
			s.FailureDomain = "fd-a"
			s.Provisioned = true
			mm := s.Object.(*v1beta2.MemMachine)
			mm.Status.InstanceState = string(cloud.InstanceRunning)
			mm.Status.ObservedGeneration = mm.Generation
		}
	}
	targets := func(want int) func(*testing.T, providertest.ScopeState, *machineEnv) {
		return func(t *testing.T, _ providertest.ScopeState, e *machineEnv) {
			lb, err := e.cloud.GetLoadBalancer(context.Background(), e.ids[services.KeyLoadBalancer])
			require.NoError(t, err)
			assert.Len(t, lb.Targets, want, "only control plane instances are load balancer targets")
		}
	}
	noData := machineState("m-0", false, []byte(userData))
	noData.BootstrapDataSecretName = ""
	providertest.RunMachineServiceCases(t, newService,
		providertest.MachineCase[*machineEnv]{
			Name: "provisions a worker", Given: machineState("m-0", false, []byte(userData)), Verify: targets(0),
			Want: providertest.Outcome{Result: reconcile.Result{Done: true}, Checkpoints: 1, State: provisioned(false)},
		},
		providertest.MachineCase[*machineEnv]{
			Name: "provisions a control plane machine behind the load balancer", Given: machineState("m-0", true, []byte(userData)), Verify: targets(1),
			Want: providertest.Outcome{Result: reconcile.Result{Done: true}, Checkpoints: 1, State: provisioned(true)},
		},
		providertest.MachineCase[*machineEnv]{
			Name: "bootstrap data not ready: no instance", Given: noData,
			Want: providertest.Outcome{Error: providertest.Transient, ErrorIs: scope.ErrBootstrapDataNotReady},
			Verify: func(t *testing.T, _ providertest.ScopeState, e *machineEnv) {
				assert.Zero(t, e.cloud.Count(cloud.KindInstance))
			},
		},
		providertest.MachineCase[*machineEnv]{
			Name: "deleting a machine that has no instance is done", Given: machineState("m-0", false, []byte(userData)), Delete: true,
			Want: providertest.Outcome{Result: reconcile.Result{Done: true}},
		},
	)
}
