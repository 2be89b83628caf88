package cloud

import (
	"cmp"
	"context"
	"strings"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
)

// Inventory names the existing vCenter objects a VM is cloned into, each by inventory path ("/DC0/vm/capi") or by
// a name the finder resolves in the datacenter ("capi", "DC0_C0/Resources"). The client observes them: it never
// creates or deletes inventory.
type Inventory struct {
	// Datacenter holds everything else.
	Datacenter string
	// Folder is the VM folder the VM is created in; a VM's name is unique in its folder.
	Folder string
	// ResourcePool is the resource pool the VM runs in, e.g. "<cluster>/Resources".
	ResourcePool string
	// Datastore holds the VM's files.
	Datastore string
	// Network is the port group of the VM's first network card.
	Network string
	// Template is the VM or template the VM is cloned from.
	Template string
}

// placement is a resolved Inventory.
type placement struct {
	folder   *object.Folder
	pool     *object.ResourcePool
	ds       *object.Datastore
	net      object.NetworkReference
	template *object.VirtualMachine
}

// resolve finds every object of inv; an object that does not exist is ErrInventoryNotFound.
func (c *Client) resolve(ctx context.Context, inv Inventory) (placement, error) {
	var p placement
	f := find.NewFinder(c.vim, false)
	dc, err := f.Datacenter(ctx, inv.Datacenter)
	if err != nil {
		return p, inventoryNotFound("datacenter", inv.Datacenter, err)
	}
	f.SetDatacenter(dc)
	if p.folder, err = f.Folder(ctx, inv.Folder); err != nil {
		return p, inventoryNotFound("folder", inv.Folder, err)
	}
	if p.pool, err = f.ResourcePool(ctx, inv.ResourcePool); err != nil {
		return p, inventoryNotFound("resource pool", inv.ResourcePool, err)
	}
	if p.ds, err = f.Datastore(ctx, inv.Datastore); err != nil {
		return p, inventoryNotFound("datastore", inv.Datastore, err)
	}
	if p.net, err = f.Network(ctx, inv.Network); err != nil {
		return p, inventoryNotFound("network", inv.Network, err)
	}
	if p.template, err = f.VirtualMachine(ctx, inv.Template); err != nil {
		return p, inventoryNotFound("template", inv.Template, err)
	}
	return p, nil
}

// Zone is the inventory of a failure domain: a compute cluster, whose root resource pool its VMs run in, and the
// datastore and network its VMs use instead of their own, when set.
type Zone struct {
	// ComputeCluster is the compute cluster (ClusterComputeResource), by name or inventory path.
	ComputeCluster string
	// Datastore and Network, when set, replace those of the VM's own Inventory.
	Datastore, Network string
}

// ResourcePool returns the inventory path of the compute cluster's root resource pool, relative when the compute
// cluster's is ("DC0_C0/Resources").
func (z Zone) ResourcePool() string { return strings.TrimRight(z.ComputeCluster, "/") + "/Resources" }

// In returns inv placed in z: the compute cluster's root resource pool, and z's datastore and network when set.
func (z Zone) In(inv Inventory) Inventory {
	inv.ResourcePool = z.ResourcePool()
	inv.Datastore = cmp.Or(z.Datastore, inv.Datastore)
	inv.Network = cmp.Or(z.Network, inv.Network)
	return inv
}

// FindZone finds the compute cluster of z in datacenter, and its datastore and network when set; an object that
// does not exist is ErrInventoryNotFound. It observes them only.
func (c *Client) FindZone(ctx context.Context, datacenter string, z Zone) error {
	f := find.NewFinder(c.vim, false)
	dc, err := f.Datacenter(ctx, datacenter)
	if err != nil {
		return inventoryNotFound("datacenter", datacenter, err)
	}
	f.SetDatacenter(dc)
	if _, err := f.ClusterComputeResource(ctx, z.ComputeCluster); err != nil {
		return inventoryNotFound("compute cluster", z.ComputeCluster, err)
	}
	if z.Datastore != "" {
		if _, err := f.Datastore(ctx, z.Datastore); err != nil {
			return inventoryNotFound("datastore", z.Datastore, err)
		}
	}
	if z.Network != "" {
		if _, err := f.Network(ctx, z.Network); err != nil {
			return inventoryNotFound("network", z.Network, err)
		}
	}
	return nil
}
