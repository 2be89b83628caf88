package cloud

import (
	"container/list"
	"sync"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/vim25/types"
)

// The defaults of the inventory cache (WithInventoryTTL, WithInventoryCacheSize).
const (
	DefaultInventoryTTL       = 5 * time.Minute
	DefaultInventoryCacheSize = 512
)

// maxCachedPath is the longest inventory path the cache holds; a longer one is found again at every call. The
// CRDs of vspherecloud allow 512 bytes.
const maxCachedPath = 1024

// Option configures a Client.
type Option func(*options)

type options struct {
	ttl  time.Duration
	size int
	now  func() time.Time
}

// WithInventoryTTL keeps what the client found of the inventory for d (DefaultInventoryTTL): an object renamed,
// moved or replaced by an admin is seen at most d later, one removed at the first call that uses it. Zero or less
// caches nothing: every clone finds its inventory again.
func WithInventoryTTL(d time.Duration) Option { return func(o *options) { o.ttl = d } }

// WithInventoryCacheSize bounds the inventory cache to n entries (DefaultInventoryCacheSize), the least recently
// used dropped first: an entry is an object found by path, a template's devices or a network's backing. Zero or
// less caches nothing.
func WithInventoryCacheSize(n int) Option { return func(o *options) { o.size = n } }

// WithClock gives the clock the inventory cache's entries expire by (time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// The kinds of entries of the cache: an object found by path is the kind the finder was asked for.
const (
	kindDatacenter     = "datacenter"
	kindFolder         = "folder"
	kindResourcePool   = "resource pool"
	kindDatastore      = "datastore"
	kindNetwork        = "network"
	kindTemplate       = "template"
	kindComputeCluster = "compute cluster"
	kindDevices        = "devices" // a template's device list, by its MoRef value
	kindBacking        = "backing" // a network's backing for a network card, by its MoRef value
)

// cacheKey names an entry: the object of kind at path in datacenter ("" for a datacenter itself), or the devices or
// backing of the object whose MoRef value path is.
type cacheKey struct{ kind, datacenter, path string }

// cacheEntry is what the cache holds under key: the object ref and, for an object found by path, its inventory path
// (a string), for devices an object.VirtualDeviceList, for a backing a types.BaseVirtualDeviceBackingInfo. Values
// are shared by the callers that get them: never changed.
type cacheEntry struct {
	key     cacheKey
	ref     types.ManagedObjectReference
	value   any
	expires time.Time
}

// inventoryCache is a bounded LRU cache of the inventory the client found, whose entries expire. It caches only what
// was found: a miss is asked again at every call. It is safe for concurrent use.
type inventoryCache struct {
	ttl  time.Duration
	size int
	now  func() time.Time

	mu    sync.Mutex
	lru   *list.List // of *cacheEntry, the most recently used first
	byKey map[cacheKey]*list.Element
}

func newInventoryCache(o options) *inventoryCache {
	return &inventoryCache{ttl: o.ttl, size: o.size, now: o.now, lru: list.New(), byKey: map[cacheKey]*list.Element{}}
}

// get returns the entry of key when it has not expired.
func (c *inventoryCache) get(key cacheKey) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return cacheEntry{}, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.remove(el)
		return cacheEntry{}, false
	}
	c.lru.MoveToFront(el)
	return *e, true
}

// put holds value of ref under key for the TTL, dropping the least recently used entries beyond the size.
func (c *inventoryCache) put(key cacheKey, ref types.ManagedObjectReference, value any) {
	if c.ttl <= 0 || c.size <= 0 || len(key.datacenter) > maxCachedPath || len(key.path) > maxCachedPath {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &cacheEntry{key: key, ref: ref, value: value, expires: c.now().Add(c.ttl)}
	if el, ok := c.byKey[key]; ok {
		el.Value = e
		c.lru.MoveToFront(el)
		return
	}
	c.byKey[key] = c.lru.PushFront(e)
	for c.lru.Len() > c.size {
		c.remove(c.lru.Back())
	}
}

// forget drops every entry of refs: the objects found by path, and their devices and backings.
func (c *inventoryCache) forget(refs ...types.ManagedObjectReference) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		for _, ref := range refs {
			if el.Value.(*cacheEntry).ref == ref {
				c.remove(el)
				break
			}
		}
		el = next
	}
}

// clear drops every entry.
func (c *inventoryCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.byKey)
}

// len returns how many entries the cache holds, expired ones included.
func (c *inventoryCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// remove drops el; c.mu is held.
func (c *inventoryCache) remove(el *list.Element) {
	delete(c.byKey, el.Value.(*cacheEntry).key)
	c.lru.Remove(el)
}

// goneObject returns the object err says does not exist (vCenter's ManagedObjectNotFound fault), if any.
func goneObject(err error) (types.ManagedObjectReference, bool) {
	var nf *types.ManagedObjectNotFound
	if _, ok := fault.As(err, &nf); !ok || nf == nil {
		return types.ManagedObjectReference{}, false
	}
	return nf.Obj, true
}
