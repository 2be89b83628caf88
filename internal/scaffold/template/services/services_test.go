package services_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"

	"github.com/capkit/capkit/internal/scaffold/template/api/v1beta2"
	"github.com/capkit/capkit/internal/scaffold/template/cloud"
	"github.com/capkit/capkit/internal/scaffold/template/services"
)

// clusterScope returns a new fake scope of QuuxCluster "c1" of Cluster "c1".
func clusterScope() *scopetest.FakeClusterScope[*v1beta2.QuuxCluster] {
	return &scopetest.FakeClusterScope[*v1beta2.QuuxCluster]{FakeObject: scopetest.FakeObject[*v1beta2.QuuxCluster]{
		Object:            &v1beta2.QuuxCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c1", Generation: 1}},
		OwnershipKeyValue: "cluster-key", ClusterInfo: scope.ClusterInfo{Name: "c1"},
	}}
}

// machineScope returns a new fake scope of QuuxMachine name of Cluster "c1" with bootstrap data.
func machineScope(name string) *scopetest.FakeMachineScope[*v1beta2.QuuxMachine] {
	return &scopetest.FakeMachineScope[*v1beta2.QuuxMachine]{
		FakeObject: scopetest.FakeObject[*v1beta2.QuuxMachine]{
			Object:            &v1beta2.QuuxMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: 1}},
			OwnershipKeyValue: "key-" + name,
			ClusterInfo:       scope.ClusterInfo{Name: "c1", InfrastructureProvisioned: true},
		},
		MachineInfo:    scope.MachineInfo{Name: name, BootstrapDataSecretName: name},
		BootstrapValue: []byte("#cloud-config\nsecret: s3cr3t\n"),
	}
}

func TestLoadBalancer(t *testing.T) {
	newService := func(t *testing.T) (reconcile.Service[scope.ClusterScoper[*v1beta2.QuuxCluster]], *cloud.Memory) {
		c := cloud.NewMemory()
		s, err := services.NewLoadBalancer(c)
		require.NoError(t, err)
		return s, c
	}
	servicetest.RunClusterCases(t, newService, []servicetest.ClusterCase[*v1beta2.QuuxCluster, *cloud.Memory]{
		{
			Name:  "creates the load balancer and sets the endpoint",
			Scope: clusterScope(),
			Want:  servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s *scopetest.FakeClusterScope[*v1beta2.QuuxCluster], c *cloud.Memory) {
				assert.Equal(t, 1, c.Count())
				assert.True(t, s.Object.IsProvisioned())
				assert.Equal(t, int32(v1beta2.DefaultLoadBalancerPort), s.Object.Spec.ControlPlaneEndpoint.Port)
				assert.NotEmpty(t, s.Object.Spec.ControlPlaneEndpoint.Host)
			},
		},
		{
			Name: "adopts the load balancer of its ownership tags instead of creating a second",
			NewScope: func(t *testing.T, c *cloud.Memory) *scopetest.FakeClusterScope[*v1beta2.QuuxCluster] {
				_, err := c.CreateLoadBalancer(context.Background(), cloud.LoadBalancerSpec{Name: "c1-apiserver", Port: 6443}, "t",
					ensure.OwnershipTags("cluster-key", services.KeyLoadBalancer))
				require.NoError(t, err)
				return clusterScope()
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, _ *scopetest.FakeClusterScope[*v1beta2.QuuxCluster], c *cloud.Memory) {
				assert.Equal(t, 1, c.Count())
			},
		},
		{
			Name: "deletes the load balancer",
			NewScope: func(t *testing.T, c *cloud.Memory) *scopetest.FakeClusterScope[*v1beta2.QuuxCluster] {
				lb, err := c.CreateLoadBalancer(context.Background(), cloud.LoadBalancerSpec{Name: "c1-apiserver", Port: 6443}, "t", nil)
				require.NoError(t, err)
				s := clusterScope()
				s.Object.Status.Resources = map[string]string{services.KeyLoadBalancer: lb.ID}
				return s
			},
			Delete: true,
			Want:   servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, _ *scopetest.FakeClusterScope[*v1beta2.QuuxCluster], c *cloud.Memory) {
				assert.Zero(t, c.Count())
			},
		},
		{
			Name: "an invalid port is terminal",
			NewScope: func(_ *testing.T, _ *cloud.Memory) *scopetest.FakeClusterScope[*v1beta2.QuuxCluster] {
				s := clusterScope()
				s.Object.Spec.LoadBalancerPort = 70000
				return s
			},
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonInvalidParameters},
		},
	}...)
}

func TestInstance(t *testing.T) {
	newService := func(t *testing.T) (reconcile.Service[scope.MachineScoper[*v1beta2.QuuxMachine]], *cloud.Memory) {
		c := cloud.NewMemory()
		s, err := services.NewInstance(c)
		require.NoError(t, err)
		return s, c
	}
	servicetest.RunMachineCases(t, newService, []servicetest.MachineCase[*v1beta2.QuuxMachine, *cloud.Memory]{
		{
			Name:  "creates the instance and waits while it boots",
			Scope: machineScope("m-0"),
			Want: servicetest.Outcome{Result: step.Result{RequeueAfter: step.DefaultPollInterval, Reason: services.ReasonInstancePending,
				Message: `resource "instance" (id "i-000001"): instance i-000001 is booting`}},
			Check: func(t *testing.T, s *scopetest.FakeMachineScope[*v1beta2.QuuxMachine], c *cloud.Memory) {
				assert.Equal(t, 1, c.Count())
				assert.NotEmpty(t, s.Object.Spec.ProviderID)
				assert.False(t, s.Object.IsProvisioned())
			},
		},
		{
			Name: "a running instance is provisioned, with its addresses",
			NewScope: func(t *testing.T, c *cloud.Memory) *scopetest.FakeMachineScope[*v1beta2.QuuxMachine] {
				inst, err := c.CreateInstance(context.Background(), cloud.InstanceSpec{Name: "m-0", Image: "i", Type: "t"}, "t", nil)
				require.NoError(t, err)
				_, err = c.GetInstance(context.Background(), inst.ID) // boots
				require.NoError(t, err)
				s := machineScope("m-0")
				s.Object.Spec.ProviderID = v1beta2.ProviderID(inst.ID)
				return s
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s *scopetest.FakeMachineScope[*v1beta2.QuuxMachine], c *cloud.Memory) {
				assert.Equal(t, 1, c.Count())
				assert.True(t, s.Object.IsProvisioned())
				assert.Contains(t, s.Object.Status.Addresses, contract.MachineAddress{Type: contract.MachineHostName, Address: "m-0"})
			},
		},
		{
			Name: "deletes the instance of its provider ID",
			NewScope: func(t *testing.T, c *cloud.Memory) *scopetest.FakeMachineScope[*v1beta2.QuuxMachine] {
				inst, err := c.CreateInstance(context.Background(), cloud.InstanceSpec{Name: "m-0", Image: "i", Type: "t"}, "t", nil)
				require.NoError(t, err)
				s := machineScope("m-0")
				s.Object.Spec.ProviderID = v1beta2.ProviderID(inst.ID)
				return s
			},
			Delete: true,
			Want:   servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, _ *scopetest.FakeMachineScope[*v1beta2.QuuxMachine], c *cloud.Memory) {
				assert.Zero(t, c.Count())
			},
		},
	}...)
}
