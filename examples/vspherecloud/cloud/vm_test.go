package cloud_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
)

func TestTagKey(t *testing.T) {
	tests := []struct{ tag, want string }{
		{"capkit.io/resource", "capkit.tag.capkit.io_2fresource"},
		{"capkit.io/ownership-key", "capkit.tag.capkit.io_2fownership-key"},
		{"Cluster_Name", "capkit.tag._43luster_5f_4eame"},
		{"capkit.io_2fresource", "capkit.tag.capkit.io_5f2fresource"}, // never the key of capkit.io/resource
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, cloud.TagKey(tt.tag), tt.tag)
	}
}

func TestACloneRunsAsATask(t *testing.T) {
	s := vspheretest.New(t, vspheretest.WithCloneTime(time.Minute))
	ctx := t.Context()
	sp := spec(s, "m-0")
	ref, err := s.Client.Clone(ctx, sp)
	require.NoError(t, err)
	steps := []struct {
		advance  time.Duration
		wantDone bool
	}{{0, false}, {59 * time.Second, false}, {time.Second, true}}
	for _, st := range steps {
		s.Advance(st.advance)
		task, err := s.Client.Task(ctx, ref)
		require.NoError(t, err)
		require.Equal(t, st.wantDone, task.Done, "after %s more", st.advance)
		found, err := s.Client.FindVMs(ctx, sp.Tags)
		require.NoError(t, err)
		assert.Len(t, found, map[bool]int{false: 0, true: 1}[st.wantDone], "the search lists the VM once its clone has ended")
		assert.Equal(t, 1, s.VMs(t), "a clone in flight counts as its VM")
		if task.Done {
			require.NoError(t, task.Err)
			assert.Equal(t, found[0].Ref, task.Result)
		}
	}
}

func TestACloneOfATakenNameFailsWithDuplicateName(t *testing.T) {
	s := vspheretest.New(t, vspheretest.WithCloneTime(time.Minute))
	ctx := t.Context()
	first, err := s.Client.Clone(ctx, spec(s, "m-0"))
	require.NoError(t, err)
	second, err := s.Client.Clone(ctx, spec(s, "m-0")) // while the first runs
	require.NoError(t, err)
	s.Advance(time.Minute)
	t1, err := s.Client.Task(ctx, first)
	require.NoError(t, err)
	t2, err := s.Client.Task(ctx, second)
	require.NoError(t, err)
	require.NoError(t, t1.Err)
	vm, taken := cloud.DuplicateName(t2.Err)
	require.True(t, taken, "the second clone fails with DuplicateName: %v", t2.Err)
	assert.Equal(t, t1.Result, vm)
	assert.Equal(t, 1, s.VMs(t))
	_, taken = cloud.DuplicateName(t1.Err)
	assert.False(t, taken)
}

func TestAFailedCloneMakesNothing(t *testing.T) {
	s := vspheretest.New(t)
	s.FailNextClone()
	ref, err := s.Client.Clone(t.Context(), spec(s, "m-0"))
	require.NoError(t, err)
	s.Advance(0)
	task, err := s.Client.Task(t.Context(), ref)
	require.NoError(t, err)
	assert.True(t, task.Done)
	require.Error(t, task.Err)
	assert.Zero(t, s.VMs(t))
}

func TestTaskOfNoTaskIsNotFound(t *testing.T) {
	s := vspheretest.New(t)
	_, err := s.Client.Task(t.Context(), "task-999999")
	require.ErrorIs(t, err, cloud.ErrNotFound)
}

func TestFindVMs(t *testing.T) {
	s := vspheretest.New(t)
	older := spec(s, "m-0")
	a := cloned(t, s, older)
	b := cloned(t, s, spec(s, "m-1"))
	other := spec(s, "m-2")
	other.Tags = map[string]string{"capkit.io/ownership-key": "k2", "capkit.io/resource": "vm"}
	c := cloned(t, s, other)
	tests := []struct {
		name string
		tags map[string]string
		want []string
	}{
		{"both of an owner, oldest first", older.Tags, []string{a.UUID, b.UUID}},
		{"another owner", other.Tags, []string{c.UUID}},
		{"a subset of the tags", map[string]string{"capkit.io/resource": "vm"}, []string{a.UUID, b.UUID, c.UUID}},
		{"no owner", map[string]string{"capkit.io/ownership-key": "k3"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, err := s.Client.FindVMs(t.Context(), tt.tags)
			require.NoError(t, err)
			var got []string
			for _, vm := range found {
				got = append(got, vm.UUID)
				assert.Equal(t, len(tt.tags), len(vm.Tags), "a VM carries the tags searched for, and no others are read")
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestReadsOfAVM(t *testing.T) {
	s := vspheretest.New(t)
	ctx := t.Context()
	vm := cloned(t, s, spec(s, "m-0"))
	tests := []struct {
		name string
		read func() (*cloud.VM, error)
	}{
		{"by MoRef", func() (*cloud.VM, error) { return s.Client.VM(ctx, vm.Ref) }},
		{"by BIOS UUID", func() (*cloud.VM, error) {
			ref, err := s.Client.FindByUUID(ctx, vm.UUID)
			if err != nil {
				return nil, err
			}
			return s.Client.VM(ctx, ref)
		}},
		{"by name in its folder", func() (*cloud.VM, error) {
			return s.Client.VMByName(ctx, vspheretest.Datacenter, vspheretest.Folder, "m-0")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.read()
			require.NoError(t, err)
			assert.Equal(t, vm.Ref, got.Ref)
			assert.Equal(t, vm.UUID, got.UUID)
		})
	}
	_, err := s.Client.VMByName(ctx, vspheretest.Datacenter, vspheretest.Folder, "m-9")
	require.ErrorIs(t, err, cloud.ErrNotFound)
	_, err = s.Client.FindByUUID(ctx, "00000000-0000-0000-0000-000000000000")
	require.ErrorIs(t, err, cloud.ErrNotFound)
}

func TestGuestIPs(t *testing.T) {
	s := vspheretest.New(t)
	vm := cloned(t, s, spec(s, "m-0"))
	assert.Empty(t, vm.IPs, "no guest tools, no address")
	require.NoError(t, s.SetGuestIP(vm.UUID, "10.0.0.7"))
	got, err := s.Client.VM(t.Context(), vm.Ref)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.7"}, got.IPs)
}

func TestPowerOffAndDestroy(t *testing.T) {
	s := vspheretest.New(t)
	ctx := t.Context()
	vm := cloned(t, s, spec(s, "m-0"))
	run := func(start func() (string, error)) error {
		ref, err := start()
		require.NoError(t, err)
		waited := s.WaitTask(ref)
		task, err := s.Client.Task(ctx, ref)
		require.NoError(t, err)
		require.True(t, task.Done)
		assert.Equal(t, waited == nil, task.Err == nil)
		return task.Err
	}
	require.Error(t, run(func() (string, error) { return s.Client.Destroy(ctx, vm.Ref) }), "a powered-on VM is not destroyed")
	require.NoError(t, run(func() (string, error) { return s.Client.PowerOff(ctx, vm.Ref) }))
	got, err := s.Client.VM(ctx, vm.Ref)
	require.NoError(t, err)
	assert.Equal(t, types.VirtualMachinePowerStatePoweredOff, got.PowerState)
	require.NoError(t, run(func() (string, error) { return s.Client.PowerOn(ctx, vm.Ref) }))
	require.NoError(t, run(func() (string, error) { return s.Client.PowerOff(ctx, vm.Ref) }))
	require.NoError(t, run(func() (string, error) { return s.Client.Destroy(ctx, vm.Ref) }))
	_, err = s.Client.VM(ctx, vm.Ref)
	require.ErrorIs(t, err, cloud.ErrNotFound)
	_, err = s.Client.FindByUUID(ctx, vm.UUID)
	require.ErrorIs(t, err, cloud.ErrNotFound)
	_, err = s.Client.Destroy(ctx, vm.Ref)
	require.ErrorIs(t, err, cloud.ErrNotFound)
	assert.Zero(t, s.VMs(t))
}

// FindTask finds the newest clone task started with an operation ID, as vCenter lists its recent tasks with their
// activation IDs: the task of a create whose handle was lost.
func TestFindTask(t *testing.T) {
	s := vspheretest.New(t)
	ctx := t.Context()
	start := s.Now()
	first := spec(s, "m-0")
	first.OperationID = "0123456789abcdef0123456789abcdef"
	s.FailNextClone()
	failed, err := s.Client.Clone(ctx, first)
	require.NoError(t, err)
	s.Advance(time.Minute)
	again, err := s.Client.Clone(ctx, first) // the same machine's create, later
	require.NoError(t, err)
	other := spec(s, "m-1")
	other.OperationID = "fedcba9876543210fedcba9876543210"
	_, err = s.Client.Clone(ctx, other)
	require.NoError(t, err)
	require.NotEqual(t, failed, again)

	tests := []struct {
		name      string
		id        string
		since     time.Time
		want      string
		wantFound bool
	}{
		{name: "the newest task of the ID", id: first.OperationID, since: start, want: again, wantFound: true},
		{name: "another ID's task", id: other.OperationID, since: start, wantFound: true},
		{name: "an ID no call gave", id: "00000000000000000000000000000000", since: start},
		{name: "queued before since, beyond the clock skew", id: first.OperationID, since: s.Now().Add(cloud.MaxClockSkew + time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := s.Client.FindTask(ctx, tt.id, tt.since)
			require.NoError(t, err)
			assert.Equal(t, tt.wantFound, found)
			if tt.want != "" {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}
