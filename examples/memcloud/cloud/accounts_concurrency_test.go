package cloud_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// TestConcurrentTenants runs the clusters of TestChaos in two accounts at once, with the same
// names, tags and idempotency tokens, while a third account has its credentials rotated under
// its running calls and a spy of one account searches for the other's resources. Nothing
// crosses accounts, no token is shared, every refused call is one that carried rotated
// credentials, and the counters add up.
func TestConcurrentTenants(t *testing.T) {
	ctx := context.Background()
	c := memcloudtest.NewCloud(t, cloud.WithSeed(7), cloud.WithPendingGets(2), cloud.WithFaults(cloud.FaultConfig{
		BeforeChange: 0.2, AfterChange: 0.2, Reads: true, SearchLag: 2,
	}))
	tenants := []string{"team-a", "team-b"}
	ctxs := map[string]context.Context{}
	for _, name := range tenants {
		creds, err := c.CreateAccount(name)
		require.NoError(t, err)
		ctxs[name] = cloud.WithCredentials(ctx, creds)
	}
	rotating, err := c.CreateAccount("rotating")
	require.NoError(t, err)
	var current atomic.Pointer[cloud.Credentials]
	current.Store(&rotating)

	const (
		clusters = 6
		rotates  = 50
		searches = 200
	)
	var (
		wg           sync.WaitGroup
		mu           sync.Mutex
		errs         []error
		refused      atomic.Int64
		crossed      atomic.Int64
		spySearches  atomic.Int64
		report       = func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() }
		ownerOfFirst = map[string]string{"owner": "0"}
	)
	for i := range clusters {
		for _, name := range tenants {
			wg.Go(func() {
				if err := runCluster(ctxs[name], c, i); err != nil {
					report(fmt.Errorf("%s cluster %d: %w", name, i, err))
				}
			})
		}
	}
	wg.Go(func() { // team-b's spy looks for team-a's first cluster by its tags
		for range searches {
			found, err := c.FindNetworks(ctxs["team-b"], ownerOfFirst)
			if errors.Is(err, cloud.ErrInjected) {
				continue
			}
			if err != nil {
				report(err)
				return
			}
			spySearches.Add(1)
			for _, n := range found {
				if account, ok := c.AccountOf(n.ID); ok && account != "team-b" {
					crossed.Add(1)
				}
			}
		}
	})
	wg.Go(func() {
		for range rotates {
			creds, err := c.RotateCredentials("rotating")
			if err != nil {
				report(err)
				return
			}
			current.Store(&creds)
		}
	})
	wg.Go(func() {
		for range searches {
			_, err := c.FindNetworks(cloud.WithCredentials(ctx, *current.Load()), ownerOfFirst)
			switch {
			case errors.Is(err, cloud.ErrUnauthorized):
				refused.Add(1)
			case err != nil && !errors.Is(err, cloud.ErrInjected):
				report(err)
				return
			}
		}
	})
	wg.Wait()
	require.NoError(t, errors.Join(errs...))

	assert.Zero(t, crossed.Load(), "team-b never saw a resource of another account")
	assert.Positive(t, spySearches.Load())
	assert.Empty(t, c.All(), "every resource was cleaned up")
	s := c.Calls()
	assert.Equal(t, 2*clusters, s.Created[cloud.KindNetwork], "one network per cluster and account: tokens are per account, never shared")
	assert.Equal(t, 2*clusters, s.Created[cloud.KindSubnet])
	for _, k := range cloud.Kinds() {
		assert.Equal(t, s.Created[k], s.Deleted[k], k)
	}
	assert.Equal(t, int(refused.Load()), s.Unauthorized, "only calls with rotated credentials were refused")
	assert.Equal(t, searches, s.ByAccount["rotating"]+s.Unauthorized)
	sum := s.Unauthorized
	for _, n := range s.ByAccount {
		sum += n
	}
	assert.Equal(t, s.Total(), sum, "every call is charged to one account or refused")
	assert.Positive(t, s.ByAccount["team-a"])
	assert.Positive(t, s.ByAccount["team-b"])
}
