package cloud

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/vmware/govmomi/vim25/types"
)

func TestInventoryCache(t *testing.T) {
	folder := func(v string) types.ManagedObjectReference {
		return types.ManagedObjectReference{Type: "Folder", Value: v}
	}
	key := func(p string) cacheKey { return cacheKey{kind: kindFolder, datacenter: "DC0", path: p} }
	tests := []struct {
		name string
		size int
		// do uses the cache c, whose clock advance moves.
		do func(c *inventoryCache, advance func(time.Duration))
		// want are the keys the cache holds after do, and gone those it does not.
		want, gone []string
	}{
		{
			name: "the least recently used entry goes beyond the size",
			size: 2,
			do: func(c *inventoryCache, _ func(time.Duration)) {
				c.put(key("a"), folder("f-a"), nil)
				c.put(key("b"), folder("f-b"), nil)
				c.get(key("a"))
				c.put(key("c"), folder("f-c"), nil)
			},
			want: []string{"a", "c"}, gone: []string{"b"},
		},
		{
			name: "an entry expires after the TTL",
			size: 10,
			do: func(c *inventoryCache, advance func(time.Duration)) {
				c.put(key("a"), folder("f-a"), nil)
				advance(time.Minute)
				c.put(key("b"), folder("f-b"), nil)
				advance(4 * time.Minute)
			},
			want: []string{"b"}, gone: []string{"a"},
		},
		{
			name: "forget drops every entry of a MoRef",
			size: 10,
			do: func(c *inventoryCache, _ func(time.Duration)) {
				c.put(key("a"), folder("f-a"), nil)
				c.put(key("/DC0/vm/a"), folder("f-a"), nil)
				c.put(cacheKey{kind: kindDevices, path: "f-a"}, folder("f-a"), nil)
				c.put(key("b"), folder("f-b"), nil)
				c.forget(folder("f-a"), folder("f-none"))
			},
			want: []string{"b"}, gone: []string{"a", "/DC0/vm/a"},
		},
		{
			name: "a path too long is not cached",
			size: 10,
			do: func(c *inventoryCache, _ func(time.Duration)) {
				c.put(key(strings.Repeat("a", maxCachedPath+1)), folder("f-a"), nil)
				c.put(key(strings.Repeat("b", maxCachedPath)), folder("f-b"), nil)
			},
			want: []string{strings.Repeat("b", maxCachedPath)}, gone: []string{strings.Repeat("a", maxCachedPath+1)},
		},
		{
			name: "put again replaces and renews",
			size: 10,
			do: func(c *inventoryCache, advance func(time.Duration)) {
				c.put(key("a"), folder("f-old"), nil)
				advance(4 * time.Minute)
				c.put(key("a"), folder("f-a"), nil)
				advance(4 * time.Minute)
			},
			want: []string{"a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC)
			c := newInventoryCache(options{ttl: 5 * time.Minute, size: tt.size, now: func() time.Time { return now }})
			tt.do(c, func(d time.Duration) { now = now.Add(d) })
			for _, p := range tt.want {
				e, ok := c.get(key(p))
				if assert.True(t, ok, "%.20s is cached", p) {
					assert.Equal(t, folder("f-"+p[:1]), e.ref)
				}
			}
			for _, p := range tt.gone {
				_, ok := c.get(key(p))
				assert.False(t, ok, "%.20s is not cached", p)
			}
			assert.LessOrEqual(t, c.len(), tt.size)
		})
	}
}
