package cloud_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
)

// lookups is how many calls the first clone of the simulator's inventory makes before its clone call: the
// inventory by govmomi's finder, the template's devices and the port group.
const lookups = 19

// clock is a clock that moves only when a test says.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// connect returns a client of s made with opts, and the count of its calls.
func connect(t *testing.T, s *vspheretest.Simulator, opts ...cloud.Option) (*cloud.Client, *vspheretest.Calls) {
	t.Helper()
	c, err := cloud.Connect(t.Context(), s.Config, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(t.Context()) })
	return c, vspheretest.Count(c.Vim25())
}

func TestCloneCachesTheInventory(t *testing.T) {
	s := vspheretest.New(t)
	ctx := t.Context()
	_, err := s.Client.Clone(ctx, spec(s, "m-0"))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"RetrievePropertiesEx": lookups, "CloneVM_Task": 1}, s.Calls.ByMethod(), "the first clone finds the inventory")

	s.Calls.Reset()
	_, err = s.Client.Clone(ctx, spec(s, "m-1"))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"CloneVM_Task": 1}, s.Calls.ByMethod(), "a second clone of the same inventory makes only the clone call")

	s.Calls.Reset()
	other := spec(s, "m-2")
	other.Folder = "/DC0/vm"
	_, err = s.Client.Clone(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Calls.ByMethod()["CloneVM_Task"])
	assert.Less(t, s.Calls.Total(), lookups/2, "a clone into another folder finds the folder only: %v", s.Calls.ByMethod())

	s.Advance(0)
	for _, name := range []string{"m-0", "m-1"} {
		vm, err := s.Client.VMByName(ctx, vspheretest.Datacenter, vspheretest.Folder, name)
		require.NoError(t, err)
		require.NotNil(t, vm, "VM %s was cloned", name)
	}
}

func TestFindZoneSharesTheCache(t *testing.T) {
	s := vspheretest.New(t)
	ctx := t.Context()
	z := cloud.Zone{ComputeCluster: vspheretest.OtherComputeCluster, Datastore: vspheretest.Datastore, Network: vspheretest.Network}
	_, err := s.Client.Clone(ctx, spec(s, "m-0"))
	require.NoError(t, err)

	s.Calls.Reset()
	require.NoError(t, s.Client.FindZone(ctx, vspheretest.Datacenter, z))
	first := s.Calls.Total()
	assert.Positive(t, first, "the compute cluster is found: the datacenter, datastore and network are the clone's")
	s.Calls.Reset()
	require.NoError(t, s.Client.FindZone(ctx, vspheretest.Datacenter, z))
	assert.Zero(t, s.Calls.Total(), "a zone found before makes no call")

	s.Calls.Reset()
	_, err = s.Client.Clone(ctx, spec(s, "m-1"))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"CloneVM_Task": 1}, s.Calls.ByMethod())

	err = s.Client.FindZone(ctx, vspheretest.Datacenter, cloud.Zone{ComputeCluster: "nope"})
	require.ErrorIs(t, err, cloud.ErrInventoryNotFound)
	assert.ErrorContains(t, err, `cannot find compute cluster "nope"`)
}

func TestCloneFindsTheInventoryAgain(t *testing.T) {
	tests := []struct {
		name string
		// change changes the inventory out of band once the first clone cached it.
		change func(*vspheretest.Simulator) error
		// edit changes the spec of every clone.
		edit func(*cloud.CloneSpec)
		// wantErr is the error of the clone after the change, "" for none.
		wantErr string
	}{
		{
			name:    "a template removed: its MoRef is gone, the clone names it",
			change:  (*vspheretest.Simulator).RemoveTemplate,
			wantErr: fmt.Sprintf("cannot find template %q", vspheretest.Template),
		},
		{
			name:   "a template replaced: the clone uses the new one",
			change: func(s *vspheretest.Simulator) error { return s.ReplaceTemplate("/DC0/vm/DC0_H0_VM1") },
		},
		{
			name:    "a folder missing is not cached: it is found once created",
			edit:    func(c *cloud.CloneSpec) { c.Folder = "/DC0/vm/later" },
			change:  func(s *vspheretest.Simulator) error { return s.CreateFolder("later") },
			wantErr: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := vspheretest.New(t)
			ctx := t.Context()
			edit := func(name string) cloud.CloneSpec {
				sp := spec(s, name)
				if tt.edit != nil {
					tt.edit(&sp)
				}
				return sp
			}
			_, firstErr := s.Client.Clone(ctx, edit("m-0"))
			if tt.edit != nil {
				require.ErrorIs(t, firstErr, cloud.ErrInventoryNotFound)
			} else {
				require.NoError(t, firstErr)
			}
			clones := s.Clones()
			require.NoError(t, tt.change(s))

			s.Calls.Reset()
			_, err := s.Client.Clone(ctx, edit("m-1"))
			if tt.wantErr != "" {
				require.ErrorIs(t, err, cloud.ErrInventoryNotFound)
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, clones, s.Clones(), "nothing cloned")
				assert.Equal(t, 1, s.Calls.ByMethod()["CloneVM_Task"], "the clone call found the template gone: %v", s.Calls.ByMethod())
				s.Calls.Reset()
				_, err = s.Client.Clone(ctx, edit("m-2"))
				require.ErrorIs(t, err, cloud.ErrInventoryNotFound, "still missing")
				assert.Positive(t, s.Calls.Total(), "a miss is not cached")
				return
			}
			require.NoError(t, err)
			s.Advance(0)
			vm, err := s.Client.VMByName(ctx, vspheretest.Datacenter, edit("").Folder, "m-1")
			require.NoError(t, err)
			require.NotNil(t, vm, "m-1 was cloned")

			s.Calls.Reset()
			_, err = s.Client.Clone(ctx, edit("m-2"))
			require.NoError(t, err)
			assert.Equal(t, map[string]int{"CloneVM_Task": 1}, s.Calls.ByMethod(), "what was found again is cached again")
		})
	}
}

func TestInventoryExpires(t *testing.T) {
	tests := []struct {
		name    string
		opts    []cloud.Option
		advance time.Duration
		// cached says whether the second clone is served from the cache.
		cached bool
	}{
		{name: "within the default TTL", advance: cloud.DefaultInventoryTTL - time.Second, cached: true},
		{name: "after the default TTL", advance: cloud.DefaultInventoryTTL},
		{name: "within a TTL of an hour", opts: []cloud.Option{cloud.WithInventoryTTL(time.Hour)}, advance: 59 * time.Minute, cached: true},
		{name: "after a TTL of a minute", opts: []cloud.Option{cloud.WithInventoryTTL(time.Minute)}, advance: time.Minute},
		{name: "no TTL: no cache", opts: []cloud.Option{cloud.WithInventoryTTL(0)}},
		{name: "no size: no cache", opts: []cloud.Option{cloud.WithInventoryCacheSize(0)}},
		{name: "a size too small for the inventory: evicted", opts: []cloud.Option{cloud.WithInventoryCacheSize(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := vspheretest.New(t)
			clk := &clock{now: time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC)}
			c, calls := connect(t, s, append([]cloud.Option{cloud.WithClock(clk.Now)}, tt.opts...)...)
			_, err := c.Clone(t.Context(), spec(s, "m-0"))
			require.NoError(t, err)
			assert.Equal(t, lookups+1, calls.Total())

			clk.Advance(tt.advance)
			calls.Reset()
			_, err = c.Clone(t.Context(), spec(s, "m-1"))
			require.NoError(t, err)
			if tt.cached {
				assert.Equal(t, 1, calls.Total(), "%v", calls.ByMethod())
			} else {
				assert.Equal(t, lookups+1, calls.Total(), "%v", calls.ByMethod())
			}
		})
	}
}

// TestCloneConcurrently clones, finds zones and fails on a missing inventory from many goroutines on one client, for
// go test -race.
func TestCloneConcurrently(t *testing.T) {
	s := vspheretest.New(t)
	ctx := t.Context()
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			sp := spec(s, fmt.Sprintf("m-%d", i))
			switch i % 4 {
			case 1:
				sp.Folder = "/DC0/vm/nope"
			case 2:
				errs[i] = s.Client.FindZone(ctx, vspheretest.Datacenter, cloud.Zone{ComputeCluster: vspheretest.ComputeCluster, Network: vspheretest.Network})
				return
			}
			_, errs[i] = s.Client.Clone(ctx, sp)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if i%4 == 1 {
			assert.ErrorIs(t, err, cloud.ErrInventoryNotFound, "clone %d", i)
		} else {
			assert.NoError(t, err, "call %d", i)
		}
	}
	assert.Equal(t, n/2, s.Clones())

	s.Calls.Reset()
	_, err := s.Client.Clone(ctx, spec(s, "last"))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"CloneVM_Task": 1}, s.Calls.ByMethod())
}
