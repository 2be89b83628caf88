package cloud

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"
)

// The extraConfig keys of cloud-init's VMware datasource: the bootstrap data and the instance's metadata, base64.
const (
	KeyUserData         = "guestinfo.userdata"
	KeyUserDataEncoding = "guestinfo.userdata.encoding"
	KeyMetaData         = "guestinfo.metadata"
	KeyMetaDataEncoding = "guestinfo.metadata.encoding"
)

// TagPrefix starts the extraConfig key of every tag the client puts on a VM (TagKey). Keys without the
// "guestinfo." prefix are not visible to the guest: the guest can neither read nor change whose VM it is.
const TagPrefix = "capkit.tag."

// TagKey returns the extraConfig key that holds tag k: TagPrefix, then k with every byte other than a lower-case
// letter, a digit, '.' or '-' written as '_' and two hex digits ("capkit.io/resource" is
// "capkit.tag.capkit.io_2fresource"), so that the key is a valid VMX key and two tags never share one.
func TagKey(k string) string {
	var b strings.Builder
	b.WriteString(TagPrefix)
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.', c == '-':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "_%02x", c)
		}
	}
	return b.String()
}

// CloneSpec is a VM to clone from a template.
type CloneSpec struct {
	// Name is the VM's name, unique in its folder.
	Name string
	// Inventory is where the VM is placed and what it is cloned from.
	Inventory
	// CPUs and MemoryMiB size the VM; zero keeps the template's.
	CPUs      int32
	MemoryMiB int64
	// DiskGiB grows the template's first disk; zero keeps its size, a smaller size is an error.
	DiskGiB int32
	// UserData is the bootstrap data (cloud-init's user data), MetaData cloud-init's metadata. Both are secret:
	// never in an error, a log or String.
	UserData, MetaData []byte
	// UUID is the BIOS UUID to give the VM; empty lets vCenter choose one.
	UUID string
	// Tags are put on the VM as extraConfig (TagKey), with the clone: a VM never exists without them.
	Tags map[string]string
	// OperationID, when set, is the operation ID of the clone call (the SOAP header operationID), which vCenter
	// records as the activation ID of the clone's task: FindTask finds the task by it.
	OperationID string
}

// String describes s without its user data and metadata.
func (s CloneSpec) String() string {
	return fmt.Sprintf("VM %q from template %q in folder %q (%d CPUs, %d MiB, disk %d GiB, user data of %d bytes)",
		s.Name, s.Template, s.Folder, s.CPUs, s.MemoryMiB, s.DiskGiB, len(s.UserData))
}

// Clone starts the clone of spec, powered on as part of the clone (CloneSpec.PowerOn), and returns the MoRef value
// of its vCenter task: read it with Task. It resolves the inventory (ErrInventoryNotFound when an object is missing)
// and reads the template's devices first, from the client's cache when they are there. A name taken in the folder
// fails the task, or the call, with the DuplicateName fault (see DuplicateName).
//
// When a call finds an object of the inventory gone (ManagedObjectNotFound: removed or replaced since the client
// cached it), the client forgets the inventory of the clone and resolves it once more, so that the error names what
// does not exist (ErrInventoryNotFound), or the clone uses what replaced it. Nothing was created by the attempt.
func (c *Client) Clone(ctx context.Context, spec CloneSpec) (string, error) {
	if spec.OperationID != "" {
		ctx = context.WithValue(ctx, types.ID{}, spec.OperationID)
	}
	ref, again, err := c.clone(ctx, spec)
	if again {
		ref, _, err = c.clone(ctx, spec)
	}
	return ref, err
}

// clone is an attempt of Clone. again says that an object of the inventory is gone: the client forgot the
// inventory of spec, and another attempt may succeed or name what is missing.
func (c *Client) clone(ctx context.Context, spec CloneSpec) (_ string, again bool, _ error) {
	p, err := c.resolve(ctx, spec.Inventory)
	if err != nil {
		return "", false, err
	}
	gone := func(err error) bool {
		ref, ok := goneObject(err)
		if ok {
			c.inventory.forget(append(p.refs(), ref)...)
		}
		return ok
	}
	devices, err := c.devices(ctx, p.template)
	if err != nil {
		return "", gone(err), fmt.Errorf("cannot read the devices of template %q: %w", spec.Template, err)
	}
	backing, err := c.backing(ctx, p.net)
	if err != nil {
		return "", gone(err), fmt.Errorf("cannot read network %q: %w", spec.Network, err)
	}
	changes, err := deviceChanges(devices, spec.DiskGiB, backing)
	if err != nil {
		return "", false, fmt.Errorf("cannot clone VM %q: %w", spec.Name, err)
	}
	pool, ds, folder := p.pool.Reference(), p.ds.Reference(), p.folder.Reference()
	cs := types.VirtualMachineCloneSpec{
		Location: types.VirtualMachineRelocateSpec{Pool: &pool, Datastore: &ds, Folder: &folder},
		PowerOn:  true,
		Config: &types.VirtualMachineConfigSpec{
			NumCPUs: spec.CPUs, MemoryMB: spec.MemoryMiB, Uuid: spec.UUID,
			ExtraConfig: extraConfig(spec), DeviceChange: changes,
		},
	}
	task, err := p.template.Clone(ctx, p.folder, spec.Name, cs)
	if err != nil {
		return "", gone(err), fmt.Errorf("cannot clone VM %q from template %q: %w", spec.Name, spec.Template, err)
	}
	return task.Reference().Value, false, nil
}

// devices returns the devices of template, from the client's cache first. The list is shared: never changed.
func (c *Client) devices(ctx context.Context, template *object.VirtualMachine) (object.VirtualDeviceList, error) {
	key := cacheKey{kind: kindDevices, path: template.Reference().Value}
	if e, ok := c.inventory.get(key); ok {
		return e.value.(object.VirtualDeviceList), nil
	}
	devices, err := template.Device(ctx)
	if err != nil {
		return nil, err
	}
	c.inventory.put(key, template.Reference(), devices)
	return devices, nil
}

// backing returns the backing of a network card on net (a distributed port group's key and switch), from the
// client's cache first. It is shared: never changed.
func (c *Client) backing(ctx context.Context, net object.NetworkReference) (types.BaseVirtualDeviceBackingInfo, error) {
	key := cacheKey{kind: kindBacking, path: net.Reference().Value}
	if e, ok := c.inventory.get(key); ok {
		return e.value.(types.BaseVirtualDeviceBackingInfo), nil
	}
	backing, err := net.EthernetCardBackingInfo(ctx)
	if err != nil {
		return nil, err
	}
	c.inventory.put(key, net.Reference(), backing)
	return backing, nil
}

// extraConfig is the bootstrap data, the metadata and the tags of spec.
func extraConfig(spec CloneSpec) []types.BaseOptionValue {
	b64 := base64.StdEncoding.EncodeToString
	opts := []types.BaseOptionValue{
		&types.OptionValue{Key: KeyUserData, Value: b64(spec.UserData)},
		&types.OptionValue{Key: KeyUserDataEncoding, Value: "base64"},
		&types.OptionValue{Key: KeyMetaData, Value: b64(spec.MetaData)},
		&types.OptionValue{Key: KeyMetaDataEncoding, Value: "base64"},
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Tags)) {
		opts = append(opts, &types.OptionValue{Key: TagKey(k), Value: spec.Tags[k]})
	}
	return opts
}

// deviceChanges grows the template's first disk to diskGiB and connects its first network card to backing. It
// changes copies of the devices: devices and backing are the client's cache's.
func deviceChanges(devices object.VirtualDeviceList, diskGiB int32, backing types.BaseVirtualDeviceBackingInfo) ([]types.BaseVirtualDeviceConfigSpec, error) {
	var changes []types.BaseVirtualDeviceConfigSpec
	if disks := devices.SelectByType((*types.VirtualDisk)(nil)); diskGiB > 0 && len(disks) > 0 {
		disk := shallowCopy(disks[0].(*types.VirtualDisk))
		want := int64(diskGiB) * 1024 * 1024
		switch {
		case want < disk.CapacityInKB:
			return nil, fmt.Errorf("%w: the disk of %d GiB is smaller than the template's (%d KiB)", ErrInvalidSpec, diskGiB, disk.CapacityInKB)
		case want > disk.CapacityInKB:
			disk.CapacityInKB, disk.CapacityInBytes = want, want*1024
			changes = append(changes, &types.VirtualDeviceConfigSpec{Operation: types.VirtualDeviceConfigSpecOperationEdit, Device: disk})
		}
	}
	nics := devices.SelectByType((*types.VirtualEthernetCard)(nil))
	if len(nics) == 0 {
		return nil, fmt.Errorf("%w: the template has no network card", ErrInvalidSpec)
	}
	dev := shallowCopy(nics[0])
	dev.(types.BaseVirtualEthernetCard).GetVirtualEthernetCard().Backing = backing
	return append(changes, &types.VirtualDeviceConfigSpec{Operation: types.VirtualDeviceConfigSpecOperationEdit, Device: dev}), nil
}

// shallowCopy returns a copy of the struct d points to, as the same type: its fields can be set without changing d's.
func shallowCopy[T any](d T) T {
	v := reflect.ValueOf(d).Elem()
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	return c.Interface().(T)
}
