package cloud

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// VM is what the client reads of a virtual machine.
type VM struct {
	// Ref is the VM's managed object reference value ("vm-42"), the handle of every call on it.
	Ref string
	// Name is unique in the VM's folder.
	Name string
	// UUID is the BIOS UUID (config.uuid), the ID of the providerID "vsphere://<UUID>".
	UUID string
	// Created is when the VM was created (config.createDate).
	Created time.Time
	// PowerState is poweredOn, poweredOff or suspended.
	PowerState types.VirtualMachinePowerState
	// IPs are the addresses guest tools report (guest.net), link-local ones left out, in the order reported.
	IPs []string
	// Tags are those of the tag keys the read asked for that the VM carries.
	Tags map[string]string
}

// vmProperties are the properties every read of a VM retrieves, besides the tags it asks for.
var vmProperties = []string{"name", "config.uuid", "config.createDate", "runtime.powerState", "guest.net"}

// tagProperty is the property path of the value of tag k, read without the rest of extraConfig (which holds the
// bootstrap data).
func tagProperty(k string) string {
	return (&mo.Field{Path: "config.extraConfig", Key: TagKey(k), Item: "value"}).String()
}

// properties returns the paths a read of a VM with tags tagKeys retrieves, and the tag of each tag path.
func properties(tagKeys []string) ([]string, map[string]string) {
	paths, tags := slices.Clone(vmProperties), make(map[string]string, len(tagKeys))
	for _, k := range tagKeys {
		p := tagProperty(k)
		paths, tags[p] = append(paths, p), k
	}
	return paths, tags
}

// vmOf decodes what RetrieveProperties returned of a VM; tags maps a tag path to its tag.
func vmOf(oc types.ObjectContent, tags map[string]string) VM {
	vm := VM{Ref: oc.Obj.Value, Tags: map[string]string{}}
	for _, p := range oc.PropSet {
		switch v := p.Val.(type) {
		case string:
			if k, ok := tags[p.Name]; ok {
				vm.Tags[k] = v
			} else if p.Name == "name" {
				vm.Name = v
			} else if p.Name == "config.uuid" {
				vm.UUID = v
			}
		case time.Time:
			vm.Created = v
		case types.VirtualMachinePowerState:
			vm.PowerState = v
		case types.ArrayOfGuestNicInfo:
			vm.IPs = guestIPs(v.GuestNicInfo)
		}
	}
	return vm
}

// guestIPs returns the addresses of nics that are valid and not link-local.
func guestIPs(nics []types.GuestNicInfo) []string {
	var ips []string
	for _, nic := range nics {
		for _, s := range nic.IpAddress {
			if ip, err := netip.ParseAddr(s); err == nil && !ip.IsLinkLocalUnicast() {
				ips = append(ips, ip.String())
			}
		}
	}
	return ips
}

// VM reads the VM ref with the tags tagKeys; ErrNotFound when it does not exist. One call (RetrieveProperties).
func (c *Client) VM(ctx context.Context, ref string, tagKeys ...string) (*VM, error) {
	paths, tags := properties(tagKeys)
	var oc []types.ObjectContent
	obj := types.ManagedObjectReference{Type: "VirtualMachine", Value: ref}
	if err := property.DefaultCollector(c.vim).Retrieve(ctx, []types.ManagedObjectReference{obj}, paths, &oc); err != nil {
		return nil, fmt.Errorf("cannot read VM %s: %w", ref, notFound(err))
	}
	if len(oc) == 0 {
		return nil, fmt.Errorf("cannot read VM %s: %w", ref, ErrNotFound)
	}
	vm := vmOf(oc[0], tags)
	return &vm, nil
}

// FindByUUID returns the MoRef value of the VM with BIOS UUID uuid, in any datacenter; ErrNotFound when there is
// none. One call (SearchIndex.FindByUuid).
func (c *Client) FindByUUID(ctx context.Context, uuid string) (string, error) {
	ref, err := object.NewSearchIndex(c.vim).FindByUuid(ctx, nil, uuid, true, nil)
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot find the VM with BIOS UUID %s: %w", uuid, err)
	case ref == nil:
		return "", fmt.Errorf("cannot find the VM with BIOS UUID %s: %w", uuid, ErrNotFound)
	}
	return ref.Reference().Value, nil
}

// VMByName returns the VM name in the folder of datacenter (inventory paths or names, as in Inventory), with the
// tags tagKeys; ErrNotFound when the folder holds none of that name.
func (c *Client) VMByName(ctx context.Context, datacenter, folder, name string, tagKeys ...string) (*VM, error) {
	f := find.NewFinder(c.vim, false)
	dc, err := f.Datacenter(ctx, datacenter)
	if err != nil {
		return nil, inventoryNotFound("datacenter", datacenter, err)
	}
	fo, err := f.SetDatacenter(dc).Folder(ctx, folder)
	if err != nil {
		return nil, inventoryNotFound("folder", folder, err)
	}
	ref, err := object.NewSearchIndex(c.vim).FindChild(ctx, fo, name)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot find VM %q in folder %q: %w", name, folder, err)
	case ref == nil || ref.Reference().Type != "VirtualMachine":
		return nil, fmt.Errorf("cannot find VM %q in folder %q: %w", name, folder, ErrNotFound)
	}
	return c.VM(ctx, ref.Reference().Value, tagKeys...)
}

// FindVMs returns the VMs of the vCenter, in every datacenter, that carry all tags, oldest first. It reads the
// tags of every VM (three calls: CreateContainerView, RetrieveProperties, DestroyView), never the rest of their
// extraConfig.
func (c *Client) FindVMs(ctx context.Context, tags map[string]string) ([]VM, error) {
	keys := slices.Sorted(maps.Keys(tags))
	paths, tagOf := properties(keys)
	m := view.NewManager(c.vim)
	v, err := m.CreateContainerView(ctx, c.vim.ServiceContent.RootFolder, []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, fmt.Errorf("cannot list VMs: %w", err)
	}
	defer func() { _ = v.Destroy(context.WithoutCancel(ctx)) }()
	var oc []types.ObjectContent
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, paths, &oc); err != nil {
		return nil, fmt.Errorf("cannot list VMs: %w", err)
	}
	var out []VM
	for _, o := range oc {
		if vm := vmOf(o, tagOf); maps.Equal(vm.Tags, tags) {
			out = append(out, vm)
		}
	}
	slices.SortStableFunc(out, func(a, b VM) int { return a.Created.Compare(b.Created) })
	return out, nil
}
