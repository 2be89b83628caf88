package cloud_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// Creating a network twice with the same idempotency token creates it once.
func ExampleCloud_CreateNetwork() {
	ctx := context.Background()
	c, err := cloud.New(cloud.WithSeed(42))
	if err != nil {
		panic(err)
	}
	spec := cloud.NetworkSpec{
		Name:             "demo",
		CIDR:             "10.0.0.0/16",
		Tags:             map[string]string{"capkit.io/cluster": "default/demo"},
		IdempotencyToken: "default/demo/network",
	}
	first, err := c.CreateNetwork(ctx, spec)
	if err != nil {
		panic(err)
	}
	second, err := c.CreateNetwork(ctx, spec)
	if err != nil {
		panic(err)
	}
	fmt.Println("same ID:", first.ID == second.ID)
	fmt.Println("networks:", c.Count(cloud.KindNetwork))
	// Output:
	// same ID: true
	// networks: 1
}

// A fault after the change: the network is created but the response is lost. Retrying with
// the same token returns the network instead of creating a second one.
func ExampleCloud_FailNext() {
	ctx := context.Background()
	c, _ := cloud.New()
	_ = c.FailNext(cloud.VerbCreate.On(cloud.KindNetwork), cloud.AfterChange)
	spec := cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16", IdempotencyToken: "demo-network"}

	_, err := c.CreateNetwork(ctx, spec)
	fmt.Println(err)
	fmt.Println("injected:", errors.Is(err, cloud.ErrInjected), "networks:", c.Count(cloud.KindNetwork))

	net, err := c.CreateNetwork(ctx, spec)
	fmt.Println("retry error:", err, "same network:", net.ID == c.List(cloud.KindNetwork)[0].ID)
	fmt.Println("networks:", c.Count(cloud.KindNetwork))
	// Output:
	// cannot create network "demo": injected fault in CreateNetwork after the change was applied
	// injected: true networks: 1
	// retry error: <nil> same network: true
	// networks: 1
}

// Eventually consistent search: a new network is missing from the next Find call.
func ExampleFaultConfig_searchLag() {
	ctx := context.Background()
	c, _ := cloud.New(cloud.WithFaults(cloud.FaultConfig{SearchLag: 1}))
	tags := map[string]string{"capkit.io/cluster": "demo"}
	_, _ = c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16", Tags: tags})
	for range 2 {
		found, _ := c.FindNetworks(ctx, tags)
		fmt.Println("found:", len(found))
	}
	// Output:
	// found: 0
	// found: 1
}

// An instance gets the first free address of its subnet and is pending until polled.
func ExampleCloud_CreateInstance() {
	ctx := context.Background()
	c, _ := cloud.New(cloud.WithPendingGets(1))
	net, _ := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"})
	subnet, _ := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "demo", NetworkID: net.ID, CIDR: "10.0.1.0/24"})
	inst, err := c.CreateInstance(ctx, cloud.InstanceSpec{
		Name: "demo-cp-0", SubnetID: subnet.ID, Image: "ubuntu-24.04", Flavor: "small",
		UserData: []byte("#cloud-config\n"),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(inst.PrivateIP, inst.State)
	for range 2 {
		inst, _ = c.GetInstance(ctx, inst.ID)
		fmt.Println(inst.State)
	}
	data, _ := c.InstanceUserData(inst.ID)
	fmt.Printf("%q\n", data)
	// Output:
	// 10.0.1.4 pending
	// pending
	// running
	// "#cloud-config\n"
}

// After a cluster is deleted, Leaks lists what it left behind and Duplicates what it created
// twice.
func ExampleCloud_Report() {
	ctx := context.Background()
	c, _ := cloud.New()
	owned := map[string]string{"capkit.io/cluster-demo": "owned"}
	net, _ := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "demo-vpc", CIDR: "10.0.0.0/16", Tags: owned})
	_, _ = c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "demo-api", NetworkID: net.ID, Tags: owned})
	_, _ = c.CreateLoadBalancer(ctx, cloud.LoadBalancerSpec{Name: "demo-api", NetworkID: net.ID, Tags: owned})

	owner := cloud.OwnerTagKeyPrefix("capkit.io/cluster-", "owned")
	fmt.Println("leaked:", len(c.Leaks(owner, "demo")))
	for _, d := range c.Duplicates(owner, "") {
		fmt.Println(d.Kind, d.Owner, d.Role, len(d.IDs))
	}
	// Output:
	// leaked: 3
	// LoadBalancer demo demo-api 2
}

// An instance group keeps Size instances. New instances boot with the group's current user
// data; scaling down deletes the newest first.
func ExampleCloud_ScaleInstanceGroup() {
	ctx := context.Background()
	c, _ := cloud.New()
	net, _ := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"})
	subnet, _ := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "demo", NetworkID: net.ID, CIDR: "10.0.1.0/24"})
	group, err := c.CreateInstanceGroup(ctx, cloud.InstanceGroupSpec{
		Name: "demo-pool", SubnetID: subnet.ID, Image: "ubuntu-24.04", Flavor: "small",
		UserData: []byte("join-token-1"), Size: 2, IdempotencyToken: "default/demo-pool",
	})
	if err != nil {
		panic(err)
	}
	// A rotated join token is used by the instances started afterwards only.
	if err := c.UpdateInstanceGroupUserData(ctx, group.ID, []byte("join-token-2")); err != nil {
		panic(err)
	}
	group, err = c.ScaleInstanceGroup(ctx, group.ID, 3)
	if err != nil {
		panic(err)
	}
	for _, gi := range group.Instances {
		inst, _ := c.GetInstance(ctx, gi.ID)
		data, _ := c.InstanceUserData(gi.ID)
		fmt.Println(inst.Name, gi.PrivateIP, gi.State, string(data))
	}
	group, _ = c.ScaleInstanceGroup(ctx, group.ID, 1)
	fmt.Println("size:", group.Size, "instances:", c.Count(cloud.KindInstance))
	// Output:
	// demo-pool-0 10.0.1.4 running join-token-1
	// demo-pool-1 10.0.1.5 running join-token-1
	// demo-pool-2 10.0.1.6 running join-token-2
	// size: 1 instances: 1
}
