package cloud_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// benchSizes are the numbers of live instances the scale benchmarks run with: the cost of one
// call should not depend on them.
var benchSizes = []int{1000, 10000}

// fleet is a cloud holding n instances of one cluster in one subnet, as a fleet benchmark
// leaves it: every instance carries the cluster tag and a tag naming its machine, and the
// first three are the targets of the cluster's load balancer.
type fleet struct {
	c      *cloud.Cloud
	subnet string
	sg     string
}

func newFleet(b *testing.B, n int) fleet {
	b.Helper()
	ctx := context.Background()
	c, err := cloud.New()
	if err != nil {
		b.Fatal(err)
	}
	net, err := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "n", CIDR: "10.0.0.0/8"})
	if err != nil {
		b.Fatal(err)
	}
	subnet, err := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "s", NetworkID: net.ID, CIDR: "10.0.0.0/16"})
	if err != nil {
		b.Fatal(err)
	}
	sg, err := c.CreateSecurityGroup(ctx, cloud.SecurityGroupSpec{Name: "sg", NetworkID: net.ID})
	if err != nil {
		b.Fatal(err)
	}
	lb, err := c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "lb", NetworkID: net.ID})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		inst, err := c.CreateInstance(ctx, cloud.InstanceSpec{Name: fmt.Sprint("m", i), SubnetID: subnet.ID, Image: "img", Flavor: "small",
			SecurityGroupIDs: []string{sg.ID}, Tags: machineTags(i)})
		if err != nil {
			b.Fatal(err)
		}
		if i < 3 {
			if err := c.RegisterTarget(ctx, lb.ID, inst.ID); err != nil {
				b.Fatal(err)
			}
		}
	}
	return fleet{c: c, subnet: subnet.ID, sg: sg.ID}
}

// machineTags are the tags of the i-th machine of the benchmark's cluster.
func machineTags(i int) map[string]string {
	return map[string]string{"cluster": "default/bench", "machine": fmt.Sprint("m", i)}
}

// BenchmarkFindByTags finds one machine's instance by its cluster and machine tags among n
// instances of the same cluster.
func BenchmarkFindByTags(b *testing.B) {
	ctx := b.Context()
	for _, n := range benchSizes {
		b.Run(fmt.Sprint("instances=", n), func(b *testing.B) {
			f := newFleet(b, n)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				found, err := f.c.FindInstances(ctx, machineTags(i%n))
				if err != nil || len(found) != 1 {
					b.Fatalf("found %d instances: %v", len(found), err)
				}
			}
		})
	}
}

// BenchmarkCreateDeleteInstance creates an instance next to n others, which takes the lowest
// free address of their subnet, and deletes it, which checks dependents and deregisters load
// balancer targets: the cloud holds n instances again after each iteration.
func BenchmarkCreateDeleteInstance(b *testing.B) {
	ctx := b.Context()
	for _, n := range benchSizes {
		b.Run(fmt.Sprint("instances=", n), func(b *testing.B) {
			f := newFleet(b, n)
			tags := machineTags(n)
			b.ReportAllocs()
			for b.Loop() {
				inst, err := f.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "x", SubnetID: f.subnet, Image: "img", Flavor: "small",
					SecurityGroupIDs: []string{f.sg}, Tags: tags})
				if err != nil {
					b.Fatal(err)
				}
				if err := f.c.DeleteInstance(ctx, inst.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
