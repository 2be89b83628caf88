package cloud

import (
	"cmp"
	"context"
	"strings"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"
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

// refs returns the objects of p.
func (p placement) refs() []types.ManagedObjectReference {
	return []types.ManagedObjectReference{p.folder.Reference(), p.pool.Reference(), p.ds.Reference(), p.net.Reference(), p.template.Reference()}
}

// resolve finds every object of inv, from the client's cache first; an object that does not exist is
// ErrInventoryNotFound.
func (c *Client) resolve(ctx context.Context, inv Inventory) (placement, error) {
	var p placement
	r, err := c.finder(ctx, inv.Datacenter)
	if err != nil {
		return p, err
	}
	if p.folder, err = lookup(ctx, r, kindFolder, inv.Folder, (*find.Finder).Folder); err != nil {
		return p, err
	}
	if p.pool, err = lookup(ctx, r, kindResourcePool, inv.ResourcePool, (*find.Finder).ResourcePool); err != nil {
		return p, err
	}
	if p.ds, err = lookup(ctx, r, kindDatastore, inv.Datastore, (*find.Finder).Datastore); err != nil {
		return p, err
	}
	if p.net, err = lookup(ctx, r, kindNetwork, inv.Network, (*find.Finder).Network); err != nil {
		return p, err
	}
	if p.template, err = lookup(ctx, r, kindTemplate, inv.Template, (*find.Finder).VirtualMachine); err != nil {
		return p, err
	}
	return p, nil
}

// finder finds the inventory of one datacenter, from the client's cache first: govmomi's finder makes a few calls
// for each object it finds.
type finder struct {
	c          *Client
	datacenter string // as the caller named it
	dc         *object.Datacenter
	f          *find.Finder // made at the first object not in the cache
}

// finder returns the finder of datacenter; ErrInventoryNotFound when it does not exist.
func (c *Client) finder(ctx context.Context, datacenter string) (*finder, error) {
	r := &finder{c: c, datacenter: datacenter}
	key := cacheKey{kind: kindDatacenter, path: datacenter}
	if e, ok := c.inventory.get(key); ok {
		if dc, ok := object.NewReference(c.vim, e.ref).(*object.Datacenter); ok {
			dc.SetInventoryPath(e.value.(string)) // the finder finds relative paths under it
			r.dc = dc
			return r, nil
		}
	}
	f := find.NewFinder(c.vim, false)
	dc, err := f.Datacenter(ctx, datacenter)
	if err != nil {
		return nil, inventoryNotFound(kindDatacenter, datacenter, err)
	}
	c.inventory.put(key, dc.Reference(), dc.InventoryPath)
	r.dc, r.f = dc, f.SetDatacenter(dc)
	return r, nil
}

// lookup returns the object of kind at path in r's datacenter, from the cache or found by search (a method of
// govmomi's finder), and caches what it found; ErrInventoryNotFound when it does not exist.
func lookup[T object.Reference](ctx context.Context, r *finder, kind, path string, search func(*find.Finder, context.Context, string) (T, error)) (T, error) {
	key := cacheKey{kind: kind, datacenter: r.datacenter, path: path}
	if e, ok := r.c.inventory.get(key); ok {
		if obj, ok := object.NewReference(r.c.vim, e.ref).(T); ok {
			return obj, nil
		}
	}
	if r.f == nil {
		r.f = find.NewFinder(r.c.vim, false).SetDatacenter(r.dc)
	}
	obj, err := search(r.f, ctx, path)
	if err != nil {
		var zero T
		return zero, inventoryNotFound(kind, path, err)
	}
	r.c.inventory.put(key, obj.Reference(), nil)
	return obj, nil
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

// FindZone finds the compute cluster of z in datacenter, and its datastore and network when set, from the client's
// cache first (it shares it with Clone); an object that does not exist is ErrInventoryNotFound. It observes them
// only.
func (c *Client) FindZone(ctx context.Context, datacenter string, z Zone) error {
	r, err := c.finder(ctx, datacenter)
	if err != nil {
		return err
	}
	if _, err := lookup(ctx, r, kindComputeCluster, z.ComputeCluster, (*find.Finder).ClusterComputeResource); err != nil {
		return err
	}
	if z.Datastore != "" {
		if _, err := lookup(ctx, r, kindDatastore, z.Datastore, (*find.Finder).Datastore); err != nil {
			return err
		}
	}
	if z.Network != "" {
		if _, err := lookup(ctx, r, kindNetwork, z.Network, (*find.Finder).Network); err != nil {
			return err
		}
	}
	return nil
}
