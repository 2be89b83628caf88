package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/capkit/capkit/scope"
)

// netSpec is the parameters of a fake network.
type netSpec struct{ CIDR string }

// fakeCloud is an in-test IaaS of networks with idempotency tokens, tags and fault injection.
type fakeCloud struct {
	mu       sync.Mutex
	next     int
	nets     map[string]map[string]string // id → tags
	tokens   map[string]string            // token → id
	calls    []string
	failNext map[string]error // method → error returned once
	// loseResponse makes Create create the network but return an error, as a lost response would.
	loseResponse bool
	// emptyID makes Create create the network but return an empty ID.
	emptyID bool
	// beforeCall runs before every cloud call, e.g. to check the finalizer is persisted.
	beforeCall func(method string) error
}

func newFakeCloud() *fakeCloud {
	return &fakeCloud{nets: map[string]map[string]string{}, tokens: map[string]string{}, failNext: map[string]error{}}
}

func (c *fakeCloud) enter(method string) error {
	c.calls = append(c.calls, method)
	if c.beforeCall != nil {
		if err := c.beforeCall(method); err != nil {
			return err
		}
	}
	if err, ok := c.failNext[method]; ok {
		delete(c.failNext, method)
		return err
	}
	return nil
}

func (c *fakeCloud) Validate(spec netSpec) error {
	if spec.CIDR == "" {
		return errors.New("cidr must not be empty")
	}
	return nil
}

func (c *fakeCloud) Get(_ context.Context, id string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enter("Get"); err != nil {
		return false, err
	}
	_, ok := c.nets[id]
	return ok, nil
}

func (c *fakeCloud) FindByTags(_ context.Context, tags map[string]string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enter("FindByTags"); err != nil {
		return "", false, err
	}
	for id, t := range c.nets {
		match := true
		for k, v := range tags {
			if t[k] != v {
				match = false
			}
		}
		if match {
			return id, true, nil
		}
	}
	return "", false, nil
}

func (c *fakeCloud) Create(_ context.Context, _ netSpec, token string, tags map[string]string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enter("Create"); err != nil {
		return "", err
	}
	if id, ok := c.tokens[token]; ok {
		if _, exists := c.nets[id]; exists {
			return id, nil
		}
	}
	c.next++
	id := fmt.Sprintf("net-%d", c.next)
	c.nets[id] = maps.Clone(tags)
	c.tokens[token] = id
	if c.loseResponse {
		c.loseResponse = false
		return "", errors.New("connection reset")
	}
	if c.emptyID {
		return "", nil
	}
	return id, nil
}

func (c *fakeCloud) Delete(_ context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enter("Delete"); err != nil {
		return err
	}
	delete(c.nets, id)
	return nil
}

func (c *fakeCloud) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.nets)
}

// fakeTracker is an in-memory scope.ResourceTracker.
type fakeTracker struct {
	key       string
	keyErr    error
	ids       map[string]string
	persisted map[string]string
	patchErr  error
	patches   int
}

func newFakeTracker() *fakeTracker {
	return &fakeTracker{key: "owner1", ids: map[string]string{}, persisted: map[string]string{}}
}

func (t *fakeTracker) OwnershipKey() (string, error) { return t.key, t.keyErr }
func (t *fakeTracker) ResourceID(key string) (string, bool) {
	id, ok := t.ids[key]
	return id, ok
}
func (t *fakeTracker) SetResourceID(key, id string) error { t.ids[key] = id; return nil }
func (t *fakeTracker) DeleteResourceID(key string) error  { delete(t.ids, key); return nil }
func (t *fakeTracker) PatchNow(context.Context) error {
	t.patches++
	if t.patchErr != nil {
		return t.patchErr
	}
	t.persisted = maps.Clone(t.ids)
	return nil
}

var _ scope.ResourceTracker = (*fakeTracker)(nil)
