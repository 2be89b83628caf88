package cloud_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// TestConcurrentCreatesWithOneToken races many reconcilers creating the same resource: exactly
// one is created and everyone gets its ID.
func TestConcurrentCreatesWithOneToken(t *testing.T) {
	ctx := context.Background()
	for _, m := range makers {
		t.Run(m.kind.String(), func(t *testing.T) {
			e := newEnv(t)
			const workers = 16
			got := make([]string, workers)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					id, err := m.create(ctx, e, req{name: "x", token: "tok", tags: map[string]string{"o": "c"}})
					assert.NoError(t, err)
					got[w] = id
				})
			}
			wg.Wait()
			for _, id := range got {
				assert.Equal(t, got[0], id)
			}
			assert.Equal(t, 1, e.c.Calls().Created[m.kind])
			assert.Empty(t, e.c.Duplicates(cloud.OwnerTagValue("o"), ""))
		})
	}
}

// TestChaos runs reconciler-like loops concurrently under faults and checks the invariants the
// provider's chaos tests rely on: retries with tokens never duplicate, every resource can be
// cleaned up, and the counters add up.
func TestChaos(t *testing.T) {
	ctx := context.Background()
	c := memcloudtest.NewCloud(t, cloud.WithSeed(99), cloud.WithPendingGets(2), cloud.WithFaults(cloud.FaultConfig{
		BeforeChange: 0.2, AfterChange: 0.2, Reads: true, SearchLag: 2,
	}))
	const clusters = 8
	errs := make([]error, clusters)
	var wg sync.WaitGroup
	for i := range clusters {
		wg.Go(func() { errs[i] = runCluster(ctx, c, i) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))

	assert.Empty(t, c.All(), "every resource was cleaned up")
	assert.Empty(t, c.Report(cloud.OwnerTagValue("owner")).ByOwner)
	s := c.Calls()
	sum := 0
	for _, n := range s.Calls {
		sum += n
	}
	assert.Equal(t, s.Total(), sum)
	assert.Positive(t, s.Faults)
	assert.Equal(t, c.TotalCreated(), s.Created[cloud.KindNetwork]+s.Created[cloud.KindSubnet]+s.Created[cloud.KindInstance])
	assert.Equal(t, clusters, s.Created[cloud.KindNetwork], "tokens prevented every duplicate network")
	assert.Equal(t, clusters, s.Created[cloud.KindSubnet], "tokens prevented every duplicate subnet")
	for _, k := range cloud.Kinds() {
		assert.Equal(t, s.Created[k], s.Deleted[k], k)
	}
}

// maxAttempts bounds the calls of one retry loop of these tests. A call fails with an injected fault with a
// probability of at most 0.4 (0.2 before and 0.2 after the change), so 100 calls in a row all fail with a
// probability below 1e-39: reaching the bound is a bug (a fault that never clears, a token that is not
// honoured, an instance that never runs), not bad luck.
const maxAttempts = 100

// retry calls f until it succeeds or fails with something else than an injected fault, at most maxAttempts
// times.
func retry(f func() error) error {
	var err error
	for range maxAttempts {
		if err = f(); !errors.Is(err, cloud.ErrInjected) {
			return err
		}
	}
	return fmt.Errorf("still failing after %d attempts: %w", maxAttempts, err)
}

// ignoreNotFound treats ErrNotFound as success, as delete paths do.
func ignoreNotFound(err error) error {
	if errors.Is(err, cloud.ErrNotFound) {
		return nil
	}
	return err
}

// runCluster creates and deletes one cluster's resources like a reconciler that retries
// every injected fault with the same idempotency tokens.
func runCluster(ctx context.Context, c *cloud.Cloud, i int) error {
	owner := map[string]string{"owner": fmt.Sprint(i)}
	r := rand.New(rand.NewPCG(uint64(i), 0))
	var net *cloud.Network
	if err := retry(func() (err error) {
		net, err = c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "vpc", CIDR: "10.0.0.0/16", Tags: owner, IdempotencyToken: fmt.Sprint(i, "-vpc")})
		return err
	}); err != nil {
		return err
	}
	var subnet *cloud.Subnet
	if err := retry(func() (err error) {
		subnet, err = c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "sn", NetworkID: net.ID, CIDR: "10.0.1.0/24", Tags: owner, IdempotencyToken: fmt.Sprint(i, "-sn")})
		return err
	}); err != nil {
		return err
	}
	var insts []string
	for m := range 2 + r.IntN(3) {
		var inst *cloud.Instance
		if err := retry(func() (err error) {
			inst, err = c.CreateInstance(ctx, cloud.InstanceSpec{Name: fmt.Sprint("m", m), SubnetID: subnet.ID, Image: "img", Flavor: "small",
				Tags: owner, IdempotencyToken: fmt.Sprint(i, "-m", m)})
			return err
		}); err != nil {
			return err
		}
		insts = append(insts, inst.ID)
		if err := retry(func() error { _, err := c.FindInstances(ctx, owner); return err }); err != nil {
			return err
		}
	}
	for _, id := range insts {
		if err := retry(func() error {
			got, err := c.GetInstance(ctx, id)
			if err == nil && got.State != cloud.InstanceRunning {
				return cloud.ErrInjected // keep polling
			}
			return err
		}); err != nil {
			return err
		}
	}
	for _, id := range insts {
		if err := ignoreNotFound(retry(func() error { return c.DeleteInstance(ctx, id) })); err != nil {
			return err
		}
	}
	if err := ignoreNotFound(retry(func() error { return c.DeleteSubnet(ctx, subnet.ID) })); err != nil {
		return err
	}
	return ignoreNotFound(retry(func() error { return c.DeleteNetwork(ctx, net.ID) }))
}
