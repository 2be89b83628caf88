package services_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/services"
	"github.com/capkit/capkit/inplace"
	"github.com/capkit/capkit/reconcile/ensure"
)

var (
	getInstance    = cloud.VerbGet.On(cloud.KindInstance)
	resizeInstance = cloud.VerbResize.On(cloud.KindInstance)
	tagInstance    = cloud.VerbTag.On(cloud.KindInstance)
)

// provisioned returns a machine env whose worker MemMachine m-0 is provisioned on a running instance of flavor
// small with user tag team=blue, and the instance's ID; the cloud's counters are reset.
func provisioned(t *testing.T, opts ...cloud.Option) (*machineEnv, machineFake, string) {
	t.Helper()
	ctx := withPoll(t.Context())
	e := newMachineEnv(t, opts...)
	s := machineScope("m-0", false, []byte(userData))
	s.Object.Spec.Flavor, s.Object.Spec.Tags = v1beta2.FlavorSmall, map[string]string{"team": "blue"}
	require.Eventually(t, func() bool {
		res, err := e.instance.Reconcile(ctx, s)
		require.NoError(t, err)
		return res.Done
	}, time.Second, time.Millisecond)
	id, err := v1beta2.InstanceIDFromProviderID(s.Object.Spec.ProviderID)
	require.NoError(t, err)
	e.cloud.ResetCounters()
	return e, s, id
}

// instanceOf reads the instance with id from the cloud's inspection view (nothing counted or advanced).
func instanceOf(t *testing.T, c *cloud.Cloud, id string) cloud.Resource {
	t.Helper()
	for _, r := range c.List(cloud.KindInstance) {
		if r.ID == id {
			return r
		}
	}
	require.FailNow(t, "no instance", id)
	return cloud.Resource{}
}

func TestInstanceCreatedWithUserTags(t *testing.T) {
	e, s, id := provisioned(t)
	assert.Equal(t, map[string]string{
		"team": "blue", services.TagCluster: "ns/c1", ensure.TagOwnershipKey: "key-m-0", ensure.TagResourceKey: services.KeyInstance,
	}, instanceOf(t, e.cloud, id).Tags)
	assert.Equal(t, 1, s.BootstrapReads)

	res, err := e.instance.Reconcile(withPoll(t.Context()), s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	assert.Equal(t, map[cloud.Op]int{getInstance: 1}, e.cloud.Calls().Calls, "a steady state: one read, no update")
	assert.Equal(t, 1, s.BootstrapReads, "and no read of the bootstrap data")
}

func TestInstanceConvergesInPlace(t *testing.T) {
	tests := []struct {
		name        string
		opts        []cloud.Option
		change      func(spec *v1beta2.MemMachineSpec)
		outOfBand   func(t *testing.T, c *cloud.Cloud, id string)
		wantCalls   map[cloud.Op]int // of the first reconcile after the change
		wantReasons []string         // of the reconciles until done
		wantFlavor  string
		wantTags    map[string]string // user tags
	}{
		{name: "flavor", change: func(s *v1beta2.MemMachineSpec) { s.Flavor = v1beta2.FlavorLarge },
			wantCalls:   map[cloud.Op]int{getInstance: 1, resizeInstance: 1},
			wantReasons: []string{services.ReasonInstanceUpdating},
			wantFlavor:  "large", wantTags: map[string]string{"team": "blue"}},
		{name: "flavor, with pending reads", opts: []cloud.Option{cloud.WithPendingGets(2)},
			change:      func(s *v1beta2.MemMachineSpec) { s.Flavor = v1beta2.FlavorLarge },
			wantCalls:   map[cloud.Op]int{getInstance: 1, resizeInstance: 1},
			wantReasons: []string{services.ReasonInstanceUpdating, services.ReasonInstanceUpdating, services.ReasonInstanceUpdating},
			wantFlavor:  "large", wantTags: map[string]string{"team": "blue"}},
		{name: "tags: at once", change: func(s *v1beta2.MemMachineSpec) { s.Tags = map[string]string{"team": "red", "cost": "42"} },
			wantCalls:  map[cloud.Op]int{getInstance: 1, tagInstance: 1},
			wantFlavor: "small", wantTags: map[string]string{"team": "red", "cost": "42"}},
		{name: "tags removed", change: func(s *v1beta2.MemMachineSpec) { s.Tags = nil },
			wantCalls:  map[cloud.Op]int{getInstance: 1, tagInstance: 1},
			wantFlavor: "small", wantTags: map[string]string{}},
		{name: "a reserved key in the spec is not memcloud's tag", change: func(s *v1beta2.MemMachineSpec) {
			s.Tags = map[string]string{"team": "blue", services.TagCluster: "ns/other"}
		}, wantCalls: map[cloud.Op]int{getInstance: 1}, wantFlavor: "small", wantTags: map[string]string{"team": "blue"}},
		{name: "flavor and tags", change: func(s *v1beta2.MemMachineSpec) { s.Flavor, s.Tags = v1beta2.FlavorMedium, nil },
			wantCalls:   map[cloud.Op]int{getInstance: 1, tagInstance: 1, resizeInstance: 1},
			wantReasons: []string{services.ReasonInstanceUpdating},
			wantFlavor:  "medium", wantTags: map[string]string{}},
		{name: "out-of-band tags are undone", outOfBand: func(t *testing.T, c *cloud.Cloud, id string) {
			_, err := c.TagInstance(context.Background(), id, map[string]string{"rogue": "1", "team": "green"}, nil)
			require.NoError(t, err)
			c.ResetCounters()
		}, wantCalls: map[cloud.Op]int{getInstance: 1, tagInstance: 1}, wantFlavor: "small", wantTags: map[string]string{"team": "blue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := withPoll(t.Context())
			e, s, id := provisioned(t, tt.opts...)
			created := e.cloud.TotalCreated()
			if tt.change != nil {
				tt.change(&s.Object.Spec)
			}
			if tt.outOfBand != nil {
				tt.outOfBand(t, e.cloud, id)
			}
			s.BootstrapValue = nil // reading it now fails: the update must not read it

			var reasons []string
			for i := 0; ; i++ {
				require.Less(t, i, 10, "converges: %v", reasons)
				res, err := e.instance.Reconcile(ctx, s)
				require.NoError(t, err)
				if i == 0 {
					assert.Equal(t, tt.wantCalls, e.cloud.Calls().Calls)
				}
				if res.Done {
					break
				}
				reasons = append(reasons, res.Reason)
				assert.Equal(t, poll, res.RequeueAfter)
				assert.Contains(t, res.Message, "instance "+id+" is being resized")
				assert.True(t, s.Object.IsProvisioned(), "a machine being updated stays provisioned")
			}
			assert.Equal(t, tt.wantReasons, reasons)
			inst, err := e.cloud.GetInstance(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, tt.wantFlavor, inst.Flavor)
			assert.Equal(t, cloud.InstanceRunning, inst.State)
			assert.Equal(t, "running", s.Object.Status.InstanceState)
			for k := range inst.Tags {
				if v1beta2.IsReservedTagKey(k) {
					delete(inst.Tags, k)
				}
			}
			assert.Equal(t, tt.wantTags, inst.Tags)
			assert.Equal(t, "ns/c1", instanceOf(t, e.cloud, id).Tags[services.TagCluster], "memcloud's own tags stay")
			assert.Equal(t, created, e.cloud.TotalCreated(), "the same instance, nothing created")
			assert.Equal(t, 1, s.BootstrapReads, "the bootstrap data was read for the create only")
			assert.LessOrEqual(t, e.cloud.Calls().Updated[cloud.KindInstance], 2, "one resize and one tag change at most")
		})
	}
}

func TestInstanceStoppedIsResizedAtOnce(t *testing.T) {
	ctx := withPoll(t.Context())
	e, s, id := provisioned(t)
	require.NoError(t, e.cloud.SetInstanceState(id, cloud.InstanceStopped))
	s.Object.Spec.Flavor = v1beta2.FlavorLarge
	res, err := e.instance.Reconcile(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, services.ReasonInstanceStopped, res.Reason)
	assert.Equal(t, "large", instanceFlavor(t, e.cloud, id))
}

func instanceFlavor(t *testing.T, c *cloud.Cloud, id string) string {
	t.Helper()
	inst, err := c.GetInstance(t.Context(), id)
	require.NoError(t, err)
	return inst.Flavor
}

func TestUpdateInstanceInPlace(t *testing.T) {
	ctx := t.Context()
	e, s, id := provisioned(t, cloud.WithPendingGets(1))
	mm := s.Object.DeepCopy()
	mm.Spec.Flavor, mm.Spec.Tags = v1beta2.FlavorLarge, map[string]string{"team": "red"}

	var got []inplace.Progress
	for i := 0; ; i++ {
		require.Less(t, i, 10)
		p, err := services.UpdateInstanceInPlace(ctx, e.cloud, mm)
		require.NoError(t, err)
		got = append(got, p)
		if p.Done {
			break
		}
	}
	assert.Equal(t, []inplace.Progress{
		{RetryAfter: time.Second, Message: "instance " + id + " is being resized from flavor small to large"},
		{RetryAfter: time.Second, Message: "instance " + id + " is being resized from flavor small to large"},
		{Done: true, Message: "instance " + id + " runs with flavor large"},
	}, got, "a Get advances the resize: pending for one more read")
	calls := e.cloud.Calls()
	assert.Equal(t, 1, calls.Of(cloud.VerbResize, cloud.KindInstance), "the resize under way is not started again")
	assert.Equal(t, 1, calls.Of(cloud.VerbTag, cloud.KindInstance))
	assert.Equal(t, 2, calls.Updated[cloud.KindInstance])
	assert.Equal(t, "red", instanceOf(t, e.cloud, id).Tags["team"])

	e.cloud.ResetCounters()
	p, err := services.UpdateInstanceInPlace(ctx, e.cloud, mm)
	require.NoError(t, err)
	assert.True(t, p.Done, "called again after a restart: done at once")
	assert.Equal(t, map[cloud.Op]int{getInstance: 1}, e.cloud.Calls().Calls)

	res, err := e.instance.Reconcile(withPoll(ctx), s)
	require.NoError(t, err)
	assert.False(t, res.Done, "the step converges to its own spec: the MemMachine it reconciles was not changed")
}

func TestUpdateInstanceInPlaceErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		setup   func(t *testing.T, c *cloud.Cloud, mm *v1beta2.MemMachine, id string)
		want    inplace.Progress
		wantErr string // <id> stands for the instance's ID
	}{
		{name: "no provider ID", setup: func(_ *testing.T, _ *cloud.Cloud, mm *v1beta2.MemMachine, _ string) { mm.Spec.ProviderID = "" },
			wantErr: `cannot update MemMachine "ns/m-0" in place: it has no instance yet (spec.providerID is empty)`},
		{name: "instance gone", setup: func(t *testing.T, c *cloud.Cloud, _ *v1beta2.MemMachine, id string) {
			require.NoError(t, c.DeleteInstance(ctx, id))
		}, wantErr: `cannot update MemMachine "ns/m-0" in place: its instance "<id>" is gone`},
		{name: "instance failed", setup: func(t *testing.T, c *cloud.Cloud, _ *v1beta2.MemMachine, id string) {
			require.NoError(t, c.SetInstanceState(id, cloud.InstanceFailed))
		}, wantErr: `cannot update MemMachine "ns/m-0" in place: its instance "<id>" failed`},
		{name: "a fault", setup: func(t *testing.T, c *cloud.Cloud, _ *v1beta2.MemMachine, _ string) {
			require.NoError(t, c.FailNext(resizeInstance, cloud.AfterChange))
		}, wantErr: `cannot update MemMachine "ns/m-0" in place: cannot resize instance "<id>" to flavor "large": injected fault in ResizeInstance after the change was applied`},
		{name: "stopped: resized, not done", setup: func(t *testing.T, c *cloud.Cloud, _ *v1beta2.MemMachine, id string) {
			require.NoError(t, c.SetInstanceState(id, cloud.InstanceStopped))
		}, want: inplace.Progress{RetryAfter: time.Second, Message: "instance <id> is stopped with flavor large"}},
		{name: "booting: not resized yet", setup: func(t *testing.T, c *cloud.Cloud, _ *v1beta2.MemMachine, id string) {
			require.NoError(t, c.SetInstanceState(id, cloud.InstancePending))
		}, want: inplace.Progress{RetryAfter: time.Second, Message: "instance <id> is pending with flavor small"}},
		{name: "throttled: called again after the cloud's hint", setup: func(t *testing.T, c *cloud.Cloud, _ *v1beta2.MemMachine, _ string) {
			require.NoError(t, c.SetRateLimit(0.5, 1))
			_, err := c.GetNetwork(ctx, "net-none") // takes the only token
			require.ErrorIs(t, err, cloud.ErrNotFound)
		}, want: inplace.Progress{RetryAfter: 2 * time.Second, Message: "memcloud throttled the update; calling again"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, s, id := provisioned(t, cloud.WithPendingGets(3))
			mm := s.Object.DeepCopy()
			mm.Spec.Flavor = v1beta2.FlavorLarge
			tt.setup(t, e.cloud, mm, id)
			p, err := services.UpdateInstanceInPlace(ctx, e.cloud, mm)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), replaceID(tt.wantErr, id))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.Done, p.Done)
			assert.Equal(t, replaceID(tt.want.Message, id), p.Message)
			assert.InDelta(t, tt.want.RetryAfter, p.RetryAfter, float64(100*time.Millisecond), "the cloud's hint is measured on its clock")
		})
	}
	_, err := services.UpdateInstanceInPlace(ctx, nil, &v1beta2.MemMachine{ObjectMeta: metav1.ObjectMeta{Name: "m"}})
	require.Error(t, err)
}

func replaceID(s, id string) string { return strings.ReplaceAll(s, "<id>", id) }

// memcloud's and capkit's own tags are reserved: the webhook refuses them in spec.tags, the services never
// remove them from an instance.
func TestOwnTagsAreReserved(t *testing.T) {
	for _, key := range []string{services.TagCluster, cloud.TagInstanceGroup, ensure.TagOwnershipKey, ensure.TagResourceKey} {
		assert.True(t, v1beta2.IsReservedTagKey(key), key)
	}
}
