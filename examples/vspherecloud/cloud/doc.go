// Package cloud is vspherecloud's client of a vCenter, over govmomi: what a Cluster API provider needs, and no more.
//
//   - Connect logs in (URL, user, password; the certificate verified, pinned by thumbprint, or not verified).
//   - Inventory names the datacenter, folder, resource pool, datastore, network and template a VM is placed in, by
//     path or name; the client only finds them (ErrInventoryNotFound), never creates or deletes inventory.
//   - Clone clones a template into that placement with CPUs, memory (MiB), a grown disk, its first network card on
//     the network, a BIOS UUID, powered on by the clone (CloneSpec.PowerOn), and extraConfig: the bootstrap data and
//     metadata under cloud-init's VMware datasource keys (guestinfo.userdata, guestinfo.metadata, base64) and the
//     tags (TagKey). It returns the vCenter task's MoRef value; Task reads it (running, the VM it made, or its fault:
//     DuplicateName when the folder holds a VM of that name). The bootstrap data is secret: no error, log or String
//     holds it.
//   - The client caches what it found of the inventory, per session: an object's MoRef by its path, a template's
//     devices and a port group's backing, for 5 minutes (WithInventoryTTL), at most 512 entries, the least recently
//     used dropped first (WithInventoryCacheSize). A miss is never cached; an entry goes when a call that used it
//     finds its object gone (ManagedObjectNotFound: Clone then resolves the inventory once more, and either clones
//     or names what is missing), or when it expires: an object renamed or replaced under the same path is seen at
//     most a TTL later. FindZone shares the cache.
//   - VM, FindByUUID and VMByName read a VM (name, BIOS UUID, creation time, power state, guest IP addresses and the
//     tags asked for); FindVMs lists the VMs carrying tags, oldest first; PowerOn, PowerOff and Destroy start tasks.
//
// Tags are extraConfig keys "capkit.tag.<key>" (TagKey), not the vSphere tagging API: the clone sets them with the
// VM, so no VM exists without them, even for an instant (the tagging API attaches a tag after the VM exists: a crash
// in between leaves a VM no search finds); they stay on the VM, so they survive clusterctl move; they need no tag or
// category objects in vCenter, which the provider would otherwise create and delete; and they are outside the
// guestinfo namespace, so the guest cannot read or change them. FindVMs reads only the tag keys of each VM
// (config.extraConfig["key"].value), never the bootstrap data beside them; its cost grows with the VMs of the vCenter
// (one RetrievePropertiesEx over a container view of all of them), where the tagging API searches on the server.
//
// Calls: Connect 2; Clone 1 task call, after the search of the inventory, the template's devices and the port group
// when the cache does not hold them (19 reads with govmomi's finder on vcsim's VPX model, the first clone of an
// inventory; 0 for a later one); FindZone 0 once cached; Task, VM, FindByUUID 1 each; FindVMs 3; each task 1.
package cloud
