package cloud_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

// A caller that calls too fast is throttled: the call does nothing and says how long to wait.
// Retrying with the same idempotency token after that wait creates the network once.
func ExampleWithRateLimit() {
	ctx := context.Background()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) // a fake clock, for a deterministic example
	c, _ := cloud.New(cloud.WithClock(func() time.Time { return now }), cloud.WithRateLimit(2, 2))
	tags := map[string]string{"capkit.io/cluster": "default/demo"}
	spec := cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16", Tags: tags, IdempotencyToken: "default/demo/network"}

	for range 2 { // the burst
		_, _ = c.FindNetworks(ctx, tags)
	}
	_, err := c.CreateNetwork(ctx, spec)
	fmt.Println(err)
	wait, throttled := cloud.RetryAfter(err)
	fmt.Println("throttled:", throttled, errors.Is(err, cloud.ErrThrottled), "networks:", c.Count(cloud.KindNetwork))

	now = now.Add(wait) // a real caller sleeps, or requeues
	_, err = c.CreateNetwork(ctx, spec)
	fmt.Println("retry:", err, "networks:", c.Count(cloud.KindNetwork))
	s := c.Calls()
	fmt.Println("calls:", s.Total(), "throttled:", s.Throttled)
	// Output:
	// cannot create network "demo": throttled: CreateNetwork: rate limit exceeded, retry after 500ms
	// throttled: true true networks: 0
	// retry: <nil> networks: 1
	// calls: 4 throttled: 1
}

// A demo turns the rate limit on while its provider runs, then off again.
func ExampleCloud_SetRateLimit() {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c, _ := cloud.New(cloud.WithClock(func() time.Time { return now }))
	creds, _ := c.CreateAccount("team-a")
	ctx := cloud.WithCredentials(context.Background(), creds)
	tags := map[string]string{"capkit.io/cluster": "default/demo"}

	_ = c.SetRateLimit(1, 1)
	_, err := c.FindNetworks(ctx, tags)
	fmt.Println("first:", err)
	_, err = c.FindNetworks(ctx, tags)
	fmt.Println(err)

	_ = c.SetRateLimit(0, 0)
	_, err = c.FindNetworks(ctx, tags)
	fmt.Println("without limit:", err)
	fmt.Println("throttled:", c.Calls().ThrottledByAccount)
	// Output:
	// first: <nil>
	// cannot find networks with tags "capkit.io/cluster=default/demo": throttled: FindNetwork for account "team-a": rate limit exceeded, retry after 1s
	// without limit: <nil>
	// throttled: map[team-a:1]
}
