package cloud_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
)

var (
	resizeInstance = cloud.VerbResize.On(cloud.KindInstance)
	tagInstance    = cloud.VerbTag.On(cloud.KindInstance)
)

// newInstance creates a small instance tagged a=1 in e's subnet.
func newInstance(t *testing.T, e env) *cloud.Instance {
	t.Helper()
	inst, err := e.c.CreateInstance(context.Background(), cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small",
		Tags: map[string]string{"a": "1"}})
	require.NoError(t, err)
	return inst
}

// getInstance reads an instance through the API (one Get: a pending instance advances).
func getInstance(t *testing.T, c *cloud.Cloud, id string) *cloud.Instance {
	t.Helper()
	inst, err := c.GetInstance(context.Background(), id)
	require.NoError(t, err)
	return inst
}

func TestResizeRunningInstance(t *testing.T) {
	for _, pendingGets := range []int{0, 1, 3} {
		t.Run(fmt.Sprintf("%d pending gets", pendingGets), func(t *testing.T) {
			ctx := t.Context()
			e := newEnv(t, cloud.WithPendingGets(pendingGets))
			inst := newInstance(t, e)
			for range pendingGets + 1 {
				inst = getInstance(t, e.c, inst.ID)
			}
			require.Equal(t, cloud.InstanceRunning, inst.State)
			e.c.ResetCounters()

			got, err := e.c.ResizeInstance(ctx, inst.ID, "large")
			require.NoError(t, err)
			assert.Equal(t, cloud.InstancePending, got.State, "stopped and starting again")
			assert.Equal(t, "small", got.Flavor, "until it runs")
			assert.Equal(t, "large", got.ResizingTo)
			again, err := e.c.ResizeInstance(ctx, inst.ID, "large")
			require.NoError(t, err, "resizing to the flavor it is being resized to changes nothing")
			assert.Equal(t, got, again)

			var states []cloud.InstanceState
			for range pendingGets + 1 {
				got = getInstance(t, e.c, inst.ID)
				states = append(states, got.State)
			}
			assert.Equal(t, cloud.InstanceRunning, states[pendingGets], "running after the usual pending reads")
			assert.NotContains(t, states[:pendingGets], cloud.InstanceRunning)
			assert.Equal(t, "large", got.Flavor)
			assert.Empty(t, got.ResizingTo)
			assert.Equal(t, inst.PrivateIP, got.PrivateIP, "the same instance: nothing replaced")
			assert.Equal(t, inst.Tags, got.Tags)

			_, err = e.c.ResizeInstance(ctx, inst.ID, "large")
			require.NoError(t, err, "resizing to the flavor it has changes nothing")
			assert.Equal(t, cloud.InstanceRunning, getInstance(t, e.c, inst.ID).State)
			s := e.c.Calls()
			assert.Equal(t, 3, s.Of(cloud.VerbResize, cloud.KindInstance), "every call is counted")
			assert.Equal(t, 3, s.Mutations)
			assert.Equal(t, 1, s.Updated[cloud.KindInstance], "one change")
		})
	}
}

func TestResizeInstanceStates(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		setup     func(t *testing.T, e env, id string) // leaves the instance in the state under test
		flavor    string
		wantErr   error
		wantMsg   string         // <id> stands for the instance's ID
		want      cloud.Instance // State, Flavor, ResizingTo
		wantCount int            // Stats.Updated[KindInstance]
	}{
		{name: "stopped: at once", flavor: "medium", wantCount: 1,
			setup: func(t *testing.T, e env, id string) {
				require.NoError(t, e.c.SetInstanceState(id, cloud.InstanceStopped))
			},
			want: cloud.Instance{State: cloud.InstanceStopped, Flavor: "medium"}},
		{name: "booting", flavor: "medium", wantErr: cloud.ErrIncorrectState,
			setup: func(t *testing.T, e env, id string) {
				require.NoError(t, e.c.SetInstanceState(id, cloud.InstancePending))
			},
			wantMsg: `: incorrect state: instance "<id>" is pending: only a running or stopped instance can be resized`,
			want:    cloud.Instance{State: cloud.InstancePending, Flavor: "small"}},
		{name: "failed", flavor: "medium", wantErr: cloud.ErrIncorrectState,
			setup: func(t *testing.T, e env, id string) {
				require.NoError(t, e.c.SetInstanceState(id, cloud.InstanceFailed))
			},
			wantMsg: `instance "<id>" is failed: only a running or stopped instance can be resized`,
			want:    cloud.Instance{State: cloud.InstanceFailed, Flavor: "small"}},
		{name: "failed, to its own flavor: nothing to do", flavor: "small",
			setup: func(t *testing.T, e env, id string) {
				require.NoError(t, e.c.SetInstanceState(id, cloud.InstanceFailed))
			},
			want: cloud.Instance{State: cloud.InstanceFailed, Flavor: "small"}},
		{name: "being resized to another flavor", flavor: "medium", wantErr: cloud.ErrIncorrectState, wantCount: 1,
			setup: func(t *testing.T, e env, id string) {
				_, err := e.c.ResizeInstance(ctx, id, "large")
				require.NoError(t, err)
			},
			wantMsg: `cannot resize instance "<id>" to flavor "medium": incorrect state: instance "<id>" is being resized to flavor "large"`,
			want:    cloud.Instance{State: cloud.InstancePending, Flavor: "small", ResizingTo: "large"}},
		{name: "unknown flavor", flavor: "huge", wantErr: cloud.ErrInvalidParameter,
			wantMsg: `cannot resize instance "<id>" to flavor "huge": invalid parameter: flavor "huge" is not a flavor of this cloud (small, medium, large)`,
			want:    cloud.Instance{State: cloud.InstanceRunning, Flavor: "small"}},
		{name: "no flavor", flavor: "", wantErr: cloud.ErrInvalidParameter, wantMsg: `flavor "" is not a flavor of this cloud`,
			want: cloud.Instance{State: cloud.InstanceRunning, Flavor: "small"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, cloud.WithPendingGets(1))
			inst := newInstance(t, e)
			require.NoError(t, e.c.SetInstanceState(inst.ID, cloud.InstanceRunning))
			if tt.setup != nil {
				tt.setup(t, e, inst.ID)
			}
			got, err := e.c.ResizeInstance(ctx, inst.ID, tt.flavor)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, got)
				assert.Contains(t, err.Error(), strings.ReplaceAll(tt.wantMsg, "<id>", inst.ID))
			} else {
				require.NoError(t, err)
			}
			view := findInstance(t, e.c, inst.ID)
			assert.Equal(t, tt.want, cloud.Instance{State: view.State, Flavor: view.Flavor, ResizingTo: view.ResizingTo})
			assert.Equal(t, tt.wantCount, e.c.Calls().Updated[cloud.KindInstance])
		})
	}
}

// findInstance reads an instance by its tag a=1 without advancing it.
func findInstance(t *testing.T, c *cloud.Cloud, id string) *cloud.Instance {
	t.Helper()
	found, err := c.FindInstances(t.Context(), map[string]string{"a": "1"})
	require.NoError(t, err)
	for _, inst := range found {
		if inst.ID == id {
			return &inst
		}
	}
	require.FailNow(t, "instance not found", id)
	return nil
}

func TestResizeInstanceErrors(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t)
	_, err := e.c.ResizeInstance(ctx, "i-00000000", "small")
	require.ErrorIs(t, err, cloud.ErrNotFound)
	assert.Contains(t, err.Error(), `cannot resize instance "i-00000000" to flavor "small": resource not found`)
	_, err = e.c.ResizeInstance(ctx, e.subnet.ID, "small")
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `is not an instance ID (want prefix "i-")`)

	custom := newEnv(t, cloud.WithFlavors("tiny", "huge"))
	assert.Equal(t, []string{"tiny", "huge"}, custom.c.Flavors())
	inst, err := custom.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: custom.subnet.ID, Image: "img", Flavor: "tiny"})
	require.NoError(t, err)
	_, err = custom.c.ResizeInstance(ctx, inst.ID, "small")
	require.ErrorIs(t, err, cloud.ErrInvalidParameter)
	assert.Contains(t, err.Error(), `flavor "small" is not a flavor of this cloud (tiny, huge)`)
	resized, err := custom.c.ResizeInstance(ctx, inst.ID, "huge")
	require.NoError(t, err)
	assert.Equal(t, "huge", getInstance(t, custom.c, resized.ID).Flavor)
	assert.Equal(t, cloud.DefaultFlavors(), e.c.Flavors())
}

func TestResizeInstanceFaults(t *testing.T) {
	for _, mode := range []cloud.FaultMode{cloud.BeforeChange, cloud.AfterChange} {
		t.Run(mode.String(), func(t *testing.T) {
			ctx := t.Context()
			e := newEnv(t)
			inst := newInstance(t, e)
			require.NoError(t, e.c.FailNext(resizeInstance, mode))
			_, err := e.c.ResizeInstance(ctx, inst.ID, "large")
			require.ErrorIs(t, err, cloud.ErrInjected)
			assert.Contains(t, err.Error(), "injected fault in ResizeInstance")
			assert.Equal(t, mode == cloud.AfterChange, findInstance(t, e.c, inst.ID).ResizingTo == "large")

			got, err := e.c.ResizeInstance(ctx, inst.ID, "large")
			require.NoError(t, err, "the retry is safe")
			assert.Equal(t, "large", got.ResizingTo)
			assert.Equal(t, 1, e.c.Calls().Updated[cloud.KindInstance], "one change in all")
			assert.Equal(t, "large", getInstance(t, e.c, inst.ID).Flavor)
		})
	}
}

func TestSetInstanceStateEndsAResize(t *testing.T) {
	e := newEnv(t, cloud.WithPendingGets(3))
	inst := newInstance(t, e)
	require.NoError(t, e.c.SetInstanceState(inst.ID, cloud.InstanceRunning))
	_, err := e.c.ResizeInstance(t.Context(), inst.ID, "large")
	require.NoError(t, err)
	require.NoError(t, e.c.SetInstanceState(inst.ID, cloud.InstanceFailed))
	got := getInstance(t, e.c, inst.ID)
	assert.Equal(t, cloud.Instance{State: cloud.InstanceFailed, Flavor: "small"}, cloud.Instance{State: got.State, Flavor: got.Flavor, ResizingTo: got.ResizingTo})
}

func TestTagInstance(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name      string
		set       map[string]string
		remove    []string
		want      map[string]string
		wantCount int
	}{
		{"add", map[string]string{"b": "2"}, nil, map[string]string{"a": "1", "b": "2"}, 1},
		{"change", map[string]string{"a": "2"}, nil, map[string]string{"a": "2"}, 1},
		{"remove", nil, []string{"a"}, map[string]string{}, 1},
		{"set and remove", map[string]string{"b": "2"}, []string{"a", "absent"}, map[string]string{"b": "2"}, 1},
		{"the same value: nothing to do", map[string]string{"a": "1"}, nil, map[string]string{"a": "1"}, 0},
		{"an absent key: nothing to do", nil, []string{"absent"}, map[string]string{"a": "1"}, 0},
		{"nothing", nil, nil, map[string]string{"a": "1"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, cloud.WithPendingGets(2))
			inst := newInstance(t, e)
			e.c.ResetCounters()
			got, err := e.c.TagInstance(ctx, inst.ID, tt.set, tt.remove)
			require.NoError(t, err, "also while the instance boots")
			assert.Equal(t, tt.want, got.Tags)
			assert.Equal(t, cloud.InstancePending, got.State, "tags change at once, without a restart")
			again, err := e.c.TagInstance(ctx, inst.ID, tt.set, tt.remove)
			require.NoError(t, err)
			assert.Equal(t, tt.want, again.Tags, "the same change again changes nothing")
			for _, r := range e.c.List(cloud.KindInstance) {
				assert.Equal(t, tt.want, r.Tags, "the cloud keeps them")
			}
			s := e.c.Calls()
			assert.Equal(t, 2, s.Of(cloud.VerbTag, cloud.KindInstance))
			assert.Equal(t, 2, s.Mutations)
			assert.Equal(t, tt.wantCount, s.Updated[cloud.KindInstance])
		})
	}
}

func TestTagInstanceRejects(t *testing.T) {
	ctx := t.Context()
	many := map[string]string{}
	for i := range 50 {
		many[fmt.Sprint("k", i)] = "v"
	}
	tests := []struct {
		name    string
		id      string
		set     map[string]string
		remove  []string
		wantErr error
		wantMsg string
	}{
		{name: "unknown instance", id: "i-00000000", wantErr: cloud.ErrNotFound, wantMsg: `cannot tag instance "i-00000000": resource not found`},
		{name: "not an instance ID", id: "net-00000000", wantErr: cloud.ErrInvalidParameter, wantMsg: `is not an instance ID`},
		{name: "empty key", set: map[string]string{"": "v"}, wantErr: cloud.ErrInvalidParameter, wantMsg: `set key "" must not be empty`},
		{name: "long value", set: map[string]string{"k": strings.Repeat("v", 257)}, wantErr: cloud.ErrInvalidParameter, wantMsg: `set[k] "vvv`},
		{name: "the group tag", set: map[string]string{cloud.TagInstanceGroup: "ig-1"}, wantErr: cloud.ErrInvalidParameter,
			wantMsg: `set key "memcloud.capkit.io/instance-group" is set by the cloud`},
		{name: "removing the group tag", remove: []string{cloud.TagInstanceGroup}, wantErr: cloud.ErrInvalidParameter,
			wantMsg: `remove[0] "memcloud.capkit.io/instance-group" is set by the cloud`},
		{name: "empty key to remove", remove: []string{"a", ""}, wantErr: cloud.ErrInvalidParameter, wantMsg: `remove[1] "" must not be empty`},
		{name: "set and removed", set: map[string]string{"b": "1"}, remove: []string{"b"}, wantErr: cloud.ErrInvalidParameter, wantMsg: `remove[0] "b" is set too`},
		{name: "too many afterwards", set: many, wantErr: cloud.ErrInvalidParameter, wantMsg: `would be 51 tags, at most 50 are allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			inst := newInstance(t, e)
			id := inst.ID
			if tt.id != "" {
				id = tt.id
			}
			got, err := e.c.TagInstance(ctx, id, tt.set, tt.remove)
			require.ErrorIs(t, err, tt.wantErr)
			assert.Nil(t, got)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Equal(t, map[string]string{"a": "1"}, findInstance(t, e.c, inst.ID).Tags, "unchanged")
			assert.Zero(t, e.c.Calls().Updated[cloud.KindInstance])
		})
	}
}

func TestTagInstanceFaults(t *testing.T) {
	for _, mode := range []cloud.FaultMode{cloud.BeforeChange, cloud.AfterChange} {
		t.Run(mode.String(), func(t *testing.T) {
			e := newEnv(t)
			inst := newInstance(t, e)
			require.NoError(t, e.c.FailNext(tagInstance, mode))
			_, err := e.c.TagInstance(t.Context(), inst.ID, map[string]string{"b": "2"}, nil)
			require.ErrorIs(t, err, cloud.ErrInjected)
			assert.Contains(t, err.Error(), "injected fault in TagInstance")
			assert.Equal(t, mode == cloud.AfterChange, findInstance(t, e.c, inst.ID).Tags["b"] == "2")
		})
	}
}

// TestConcurrentResizesAndTags races reconcilers and in-place update calls on one instance: every call
// succeeds, the instance is resized and tagged once.
func TestConcurrentResizesAndTags(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, cloud.WithPendingGets(1))
	inst := newInstance(t, e)
	require.NoError(t, e.c.SetInstanceState(inst.ID, cloud.InstanceRunning))
	e.c.ResetCounters()
	const workers = 16
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			_, err := e.c.TagInstance(ctx, inst.ID, map[string]string{"team": "blue"}, []string{"a"})
			assert.NoError(t, err)
			_, err = e.c.ResizeInstance(ctx, inst.ID, "medium")
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	got := getInstance(t, e.c, inst.ID)
	got = getInstance(t, e.c, got.ID)
	assert.Equal(t, cloud.Instance{State: cloud.InstanceRunning, Flavor: "medium"}, cloud.Instance{State: got.State, Flavor: got.Flavor, ResizingTo: got.ResizingTo})
	assert.Equal(t, map[string]string{"team": "blue"}, got.Tags)
	s := e.c.Calls()
	assert.Equal(t, 2, s.Updated[cloud.KindInstance], "one resize and one tag change")
	assert.Equal(t, 2*workers, s.Mutations)
}
