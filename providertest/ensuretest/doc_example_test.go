package ensuretest_test

import (
	"context"
	"testing"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/providertest/ensuretest"
	"github.com/capkit/capkit/reconcile/ensure"
)

// TestNetworkResource is the package doc's sketch: the scenarios of memcloud's network resource.
//
// snippet:start network
func TestNetworkResource(t *testing.T) {
	ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[cloud.NetworkSpec, *cloud.Network]{
		Key:             "network",
		ValidSpec:       cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"},
		InvalidSpec:     cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.1/16"},
		OutOfBandDelete: ensuretest.ReportTerminal, // memcloud refuses the token of a deleted network
		Options:         []ensure.Option{ensure.WithTags(map[string]string{"capkit.io/cluster": "default/demo"})},
		New: func(t testing.TB) ensuretest.CloudFixture[cloud.NetworkSpec, *cloud.Network] {
			c := memcloudtest.NewCloud(t)
			return ensuretest.CloudFixture[cloud.NetworkSpec, *cloud.Network]{
				Resource:        services.NewResources(c).Networks,
				Count:           func() int { return c.Count(cloud.KindNetwork) },
				DeleteOutOfBand: func(id string) error { return c.DeleteNetwork(context.Background(), id) },
			}
		},
	})
}

// snippet:end network
