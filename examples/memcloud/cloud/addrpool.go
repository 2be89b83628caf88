package cloud

import (
	"container/heap"
	"encoding/binary"
	"net/netip"
)

// addrPool hands out the private addresses of a subnet, always the lowest free one, in
// O(log n) per address. The first four addresses of the subnet and the last one are reserved,
// as in EC2.
//
// The addresses from next up to end have never been handed out; the free addresses below
// next, given back by deleted instances, are in freed, a min-heap. The lowest free address is
// therefore the top of freed when there is one, next otherwise.
type addrPool struct {
	next  uint32 // the lowest address never handed out
	end   uint32 // one past the last address that can be handed out
	size  int    // the number of addresses that can be handed out
	freed addrHeap
	used  map[netip.Addr]string // address -> ID of the instance that has it
}

func newAddrPool(p netip.Prefix) *addrPool {
	b := p.Addr().As4()
	base := binary.BigEndian.Uint32(b[:])
	last := base | (1<<(32-p.Bits()) - 1)
	return &addrPool{next: base + 4, end: last, size: int(last - base - 4), used: map[netip.Addr]string{}}
}

// take gives the lowest free address to the instance with the given ID, or returns false when
// every address is used.
func (a *addrPool) take(id string) (netip.Addr, bool) {
	var n uint32
	switch {
	case len(a.freed) > 0:
		n = heap.Pop(&a.freed).(uint32)
	case a.next < a.end:
		n = a.next
		a.next++
	default:
		return netip.Addr{}, false
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	addr := netip.AddrFrom4(b)
	a.used[addr] = id
	return addr, true
}

// release frees an address that take gave out; it ignores any other.
func (a *addrPool) release(addr netip.Addr) {
	if _, ok := a.used[addr]; !ok {
		return
	}
	delete(a.used, addr)
	b := addr.As4()
	heap.Push(&a.freed, binary.BigEndian.Uint32(b[:]))
}

// free returns the number of addresses take can still give.
func (a *addrPool) free() int { return a.size - len(a.used) }

// addrHeap is a min-heap of IPv4 addresses as numbers, for container/heap.
type addrHeap []uint32

func (h addrHeap) Len() int           { return len(h) }
func (h addrHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h addrHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

// Push is called by container/heap only.
func (h *addrHeap) Push(x any) { *h = append(*h, x.(uint32)) }

// Pop is called by container/heap only.
func (h *addrHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	*h = old[:len(old)-1]
	return n
}
