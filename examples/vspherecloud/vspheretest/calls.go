package vspheretest

import (
	"context"
	"maps"
	"reflect"
	"strings"
	"sync"

	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
)

// Calls counts the SOAP calls a vim25.Client makes, by method.
type Calls struct {
	next soap.RoundTripper
	mu   sync.Mutex
	n    map[string]int
}

// Count wraps c's RoundTripper so that the Calls it returns count every call c makes from now on.
func Count(c *vim25.Client) *Calls {
	calls := &Calls{next: c.RoundTripper, n: map[string]int{}}
	c.RoundTripper = calls
	return calls
}

// RoundTrip counts the call and makes it.
func (c *Calls) RoundTrip(ctx context.Context, req, res soap.HasFault) error {
	method := strings.TrimSuffix(reflect.TypeOf(req).Elem().Name(), "Body")
	c.mu.Lock()
	c.n[method]++
	c.mu.Unlock()
	return c.next.RoundTrip(ctx, req, res)
}

// Total returns how many calls were made.
func (c *Calls) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, n := range c.n {
		total += n
	}
	return total
}

// ByMethod returns how many calls of each method were made.
func (c *Calls) ByMethod() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// Reset forgets the calls counted so far.
func (c *Calls) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.n)
}
