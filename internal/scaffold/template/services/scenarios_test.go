package services_test

import (
	"context"
	"testing"

	"github.com/capkit/capkit/providertest/ensuretest"

	"github.com/capkit/capkit/internal/scaffold/template/cloud"
	"github.com/capkit/capkit/internal/scaffold/template/services"
)

// TestEnsureScenarios runs capkit's duplicate and leak scenarios (crash before the ID is recorded, lost
// create response, clusterctl move, out-of-band deletion, ...) against each resource kind on the in-memory
// cloud. Run them against your cloud's sandbox too, with a fixture over its SDK.
func TestEnsureScenarios(t *testing.T) {
	t.Run("LoadBalancer", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.LoadBalancerSpec, *cloud.LoadBalancer]{
			Key: services.KeyLoadBalancer, OutOfBandDelete: ensuretest.ReportTerminal,
			ValidSpec:   cloud.LoadBalancerSpec{Name: "c1-apiserver", Port: 6443},
			InvalidSpec: cloud.LoadBalancerSpec{Name: "c1-apiserver"},
			New: func(testing.TB) ensuretest.CloudFixture[cloud.LoadBalancerSpec, *cloud.LoadBalancer] {
				c := cloud.NewMemory()
				return ensuretest.CloudFixture[cloud.LoadBalancerSpec, *cloud.LoadBalancer]{Resource: services.LoadBalancers(c), Count: c.Count,
					DeleteOutOfBand: func(id string) error { return c.DeleteLoadBalancer(context.Background(), id) }}
			},
		})
	})
	t.Run("Instance", func(t *testing.T) {
		ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.InstanceSpec, *cloud.Instance]{
			Key: services.KeyInstance, OutOfBandDelete: ensuretest.ReportTerminal,
			ValidSpec:   cloud.InstanceSpec{Name: "m-0", Image: "ubuntu-24.04", Type: "small"},
			InvalidSpec: cloud.InstanceSpec{Name: "m-0"},
			New: func(testing.TB) ensuretest.CloudFixture[cloud.InstanceSpec, *cloud.Instance] {
				c := cloud.NewMemory()
				return ensuretest.CloudFixture[cloud.InstanceSpec, *cloud.Instance]{Resource: services.Instances(c), Count: c.Count,
					DeleteOutOfBand: func(id string) error { return c.DeleteInstance(context.Background(), id) }}
			},
		})
	})
}
