package cloud_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold/template/cloud"
)

func TestMemoryCreateIsIdempotentPerToken(t *testing.T) {
	ctx := context.Background()
	c := cloud.NewMemory()
	spec := cloud.InstanceSpec{Name: "m", Image: "img", Type: "small"}
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inst, err := c.CreateInstance(ctx, spec, "token", map[string]string{"owner": "k"})
			if assert.NoError(t, err) {
				ids[i] = inst.ID
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, c.Count())
	for _, id := range ids {
		assert.Equal(t, ids[0], id)
	}
	found, err := c.FindInstances(ctx, map[string]string{"owner": "k"})
	require.NoError(t, err)
	assert.Len(t, found, 1)
	assert.Equal(t, []string{"Instance " + ids[0]}, c.Tagged("owner", "k"))

	require.NoError(t, c.DeleteInstance(ctx, ids[0]))
	_, err = c.GetInstance(ctx, ids[0])
	require.ErrorIs(t, err, cloud.ErrNotFound)
	_, err = c.CreateInstance(ctx, spec, "token", nil)
	require.ErrorIs(t, err, cloud.ErrInvalidParameter, "the token of a deleted instance is not reused")
}

func TestMemoryValidates(t *testing.T) {
	ctx := t.Context()
	c := cloud.NewMemory()
	for i, spec := range []cloud.LoadBalancerSpec{{}, {Name: "lb"}, {Name: "lb", Port: 70000}} {
		_, err := c.CreateLoadBalancer(ctx, spec, fmt.Sprint(i), nil)
		require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	}
	assert.Zero(t, c.Count())
}
