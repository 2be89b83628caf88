package cloud_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
)

// userData is bootstrap data whose text must never appear in an error.
const userData = "#cloud-config\nruncmd: [echo s3cr3t-b00tstrap]\n"

func spec(s *vspheretest.Simulator, name string) cloud.CloneSpec {
	return cloud.CloneSpec{Name: name, Inventory: s.Inventory, CPUs: 2, MemoryMiB: 4096, DiskGiB: 20,
		UserData: []byte(userData), MetaData: []byte("instance-id: " + name + "\n"), UUID: uuid.NewString(),
		Tags: map[string]string{"capkit.io/ownership-key": "k1", "capkit.io/resource": "vm"}}
}

// cloned clones sp, lets the clone end and returns its VM.
func cloned(t *testing.T, s *vspheretest.Simulator, sp cloud.CloneSpec) *cloud.VM {
	t.Helper()
	ctx := t.Context()
	ref, err := s.Client.Clone(ctx, sp)
	require.NoError(t, err)
	s.Advance(0)
	task, err := s.Client.Task(ctx, ref)
	require.NoError(t, err)
	require.True(t, task.Done)
	require.NoError(t, task.Err)
	vm, err := s.Client.VM(ctx, task.Result, "capkit.io/ownership-key", "capkit.io/resource")
	require.NoError(t, err)
	return vm
}

func TestConnect(t *testing.T) {
	s := vspheretest.New(t)
	tests := []struct {
		name    string
		edit    func(*cloud.Config)
		wantErr string
	}{
		{name: "insecure", edit: func(*cloud.Config) {}},
		{name: "pinned thumbprint", edit: func(c *cloud.Config) { c.Insecure, c.Thumbprint = false, s.Thumbprint }},
		{name: "full URL", edit: func(c *cloud.Config) { c.URL = "https://" + c.URL + "/sdk" }},
		{name: "wrong password", edit: func(c *cloud.Config) { c.Password = "hunter2-wrong" }, wantErr: "cannot log in"},
		{name: "unknown certificate", edit: func(c *cloud.Config) { c.Insecure = false }, wantErr: "cannot connect"},
		{name: "pinned thumbprint in lower case", edit: func(c *cloud.Config) { c.Insecure, c.Thumbprint = false, strings.ToLower(s.Thumbprint) }},
		{name: "wrong thumbprint", edit: func(c *cloud.Config) { c.Insecure, c.Thumbprint = false, strings.Repeat("AB:", 19)+"AB" },
			wantErr: "is not the pinned AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB"},
		{name: "no URL", edit: func(c *cloud.Config) { c.URL = "" }, wantErr: "URL is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := s.Config
			tt.edit(&cfg)
			c, err := cloud.Connect(t.Context(), cfg)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.NotContains(t, err.Error(), cfg.Password)
				return
			}
			require.NoError(t, err)
			require.NoError(t, c.Close(t.Context()))
		})
	}
}

func TestCloneMakesTheVMOfItsSpec(t *testing.T) {
	s := vspheretest.New(t)
	sp := spec(s, "m-0")
	vm := cloned(t, s, sp)
	assert.Equal(t, "m-0", vm.Name)
	assert.Equal(t, sp.UUID, vm.UUID)
	assert.Equal(t, types.VirtualMachinePowerStatePoweredOn, vm.PowerState)
	assert.Equal(t, map[string]string{"capkit.io/ownership-key": "k1", "capkit.io/resource": "vm"}, vm.Tags)
	assert.WithinDuration(t, time.Now(), vm.Created, time.Minute)

	got, err := s.Inspect(sp.UUID)
	require.NoError(t, err)
	assert.Equal(t, int32(2), got.Config.Hardware.NumCPU)
	assert.Equal(t, int32(4096), got.Config.Hardware.MemoryMB)
	extra := map[string]any{}
	for _, o := range got.Config.ExtraConfig {
		extra[o.GetOptionValue().Key] = o.GetOptionValue().Value
	}
	b64 := base64.StdEncoding.EncodeToString
	assert.Equal(t, b64([]byte(userData)), extra[cloud.KeyUserData])
	assert.Equal(t, "base64", extra[cloud.KeyUserDataEncoding])
	assert.Equal(t, b64(sp.MetaData), extra[cloud.KeyMetaData])
	assert.Equal(t, "base64", extra[cloud.KeyMetaDataEncoding])
	assert.Equal(t, "k1", extra["capkit.tag.capkit.io_2fownership-key"])
	var disk *types.VirtualDisk
	for _, d := range got.Config.Hardware.Device {
		if vd, ok := d.(*types.VirtualDisk); ok && disk == nil {
			disk = vd
		}
	}
	require.NotNil(t, disk)
	assert.Equal(t, int64(20*1024*1024), disk.CapacityInKB)
	nics := object.VirtualDeviceList(got.Config.Hardware.Device).SelectByType((*types.VirtualEthernetCard)(nil))
	require.NotEmpty(t, nics)
	backing, ok := nics[0].GetVirtualDevice().Backing.(*types.VirtualEthernetCardDistributedVirtualPortBackingInfo)
	require.True(t, ok, "the network card is connected to the distributed port group %s", vspheretest.Network)
	assert.NotEmpty(t, backing.Port.PortgroupKey)
	t.Logf("template disk: %d KiB", disk.CapacityInKB)
}

func TestCloneFailsBeforeAnyCloneOnABadSpec(t *testing.T) {
	s := vspheretest.New(t)
	tests := []struct {
		name    string
		edit    func(*cloud.CloneSpec)
		wantErr error
	}{
		{name: "datacenter", edit: func(c *cloud.CloneSpec) { c.Datacenter = "DC9" }, wantErr: cloud.ErrInventoryNotFound},
		{name: "folder", edit: func(c *cloud.CloneSpec) { c.Folder = "/DC0/vm/nope" }, wantErr: cloud.ErrInventoryNotFound},
		{name: "resource pool", edit: func(c *cloud.CloneSpec) { c.ResourcePool = "nope/Resources" }, wantErr: cloud.ErrInventoryNotFound},
		{name: "datastore", edit: func(c *cloud.CloneSpec) { c.Datastore = "nope" }, wantErr: cloud.ErrInventoryNotFound},
		{name: "network", edit: func(c *cloud.CloneSpec) { c.Network = "nope" }, wantErr: cloud.ErrInventoryNotFound},
		{name: "template", edit: func(c *cloud.CloneSpec) { c.Template = "nope" }, wantErr: cloud.ErrInventoryNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := spec(s, "bad")
			tt.edit(&sp)
			_, err := s.Client.Clone(t.Context(), sp)
			require.ErrorIs(t, err, tt.wantErr)
			assert.NotContains(t, err.Error(), "s3cr3t")
			assert.Zero(t, s.Clones())
		})
	}
	assert.NotContains(t, fmt.Sprintf("%v %+v %s", spec(s, "x"), spec(s, "x"), spec(s, "x")), "s3cr3t", "CloneSpec must print without its user data")
}
