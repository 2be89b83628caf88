package cloud_test

import (
	"fmt"
	"testing"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// BenchmarkInstanceLifecycle measures create, get, find and delete of one instance in a cloud
// that already holds 100 instances.
func BenchmarkInstanceLifecycle(b *testing.B) {
	ctx := b.Context()
	c, err := cloud.New()
	if err != nil {
		b.Fatal(err)
	}
	net, _ := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/16"})
	subnet, _ := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: net.ID, CIDR: "10.0.0.0/20"})
	for i := range 100 {
		if _, err := c.CreateInstance(ctx, cloud.InstanceSpec{Name: fmt.Sprint(i), SubnetID: subnet.ID, Image: "img", Flavor: "small"}); err != nil {
			b.Fatal(err)
		}
	}
	tags := map[string]string{"owner": "bench"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		inst, err := c.CreateInstance(ctx, cloud.InstanceSpec{Name: "x", SubnetID: subnet.ID, Image: "img", Flavor: "small",
			Tags: tags, IdempotencyToken: fmt.Sprint(i)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.GetInstance(ctx, inst.ID); err != nil {
			b.Fatal(err)
		}
		if _, err := c.FindInstances(ctx, tags); err != nil {
			b.Fatal(err)
		}
		if err := c.DeleteInstance(ctx, inst.ID); err != nil {
			b.Fatal(err)
		}
	}
}
