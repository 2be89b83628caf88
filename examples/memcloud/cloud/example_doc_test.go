package cloud_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// Each kind has Create, Get, Delete and Find methods that read like a cloud SDK.
func Example() {
	ctx := context.Background()
	// snippet:start api
	c, _ := cloud.New(cloud.WithSeed(42))
	net, _ := c.CreateNetwork(ctx, cloud.NetworkSpec{
		Name: "demo", CIDR: "10.0.0.0/16",
		Tags:             map[string]string{"capkit.io/cluster": "default/demo"},
		IdempotencyToken: "demo-network",
	})
	subnet, _ := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "demo", NetworkID: net.ID, CIDR: "10.0.1.0/24"})
	found, err := c.FindNetworks(ctx, map[string]string{"capkit.io/cluster": "default/demo"})
	// snippet:end api
	fmt.Println(subnet.NetworkID == net.ID, len(found), found[0].ID == net.ID, err)
	// Output: true 1 true <nil>
}

// Once the cloud has accounts, calls carry credentials on their context.
func ExampleWithCredentials() {
	ctx := context.Background()
	c, _ := cloud.New(cloud.WithSeed(42))
	// snippet:start credentials
	creds, _ := c.CreateAccount("team-a")
	ctx = cloud.WithCredentials(ctx, creds)
	net, _ := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"})
	_, err := c.GetNetwork(context.Background(), net.ID) // ErrUnauthorized: no credentials
	// snippet:end credentials
	fmt.Println(errors.Is(err, cloud.ErrUnauthorized))
	// Output: true
}

// A throttled call changes nothing and says when to retry.
func ExampleRetryAfter() {
	ctx := context.Background()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) // a fake clock, for a deterministic example
	clock := cloud.WithClock(func() time.Time { return now })
	spec := cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16", IdempotencyToken: "default/demo/network"}
	// snippet:start throttled
	c, _ := cloud.New(cloud.WithRateLimit(1, 1), clock)
	_, _ = c.FindNetworks(ctx, nil) // takes the only token
	net, err := c.CreateNetwork(ctx, spec)
	if wait, ok := cloud.RetryAfter(err); ok {
		now = now.Add(wait) // nothing was created: retry with the same idempotency token after wait
		net, err = c.CreateNetwork(ctx, spec)
	}
	// snippet:end throttled
	fmt.Println(net.Name, err, c.Count(cloud.KindNetwork))
	// Output: demo <nil> 1
}
