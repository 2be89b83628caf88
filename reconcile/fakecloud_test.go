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

// fakeNet is a fake network as the cloud reports it.
type fakeNet struct {
	ID, CIDR, State string
	Tags            map[string]string
}

// fakeCloud is an in-test IaaS of networks with idempotency tokens, tags and fault injection.
type fakeCloud struct {
	mu       sync.Mutex
	next     int
	nets     map[string]*fakeNet
	tokens   map[string]string // token → id
	calls    []string
	failNext map[string]error // method → error returned once
	// loseResponse makes Create create the network but return an error, as a lost response would.
	loseResponse bool
	// emptyID makes Create create the network but return one without an ID.
	emptyID bool
	// state is the state of the networks Create makes ("" is ready).
	state string
	// beforeCall runs before every cloud call, e.g. to check the finalizer is persisted.
	beforeCall func(method string) error
}

func newFakeCloud() *fakeCloud {
	return &fakeCloud{nets: map[string]*fakeNet{}, tokens: map[string]string{}, failNext: map[string]error{}}
}

// put adds a network behind the Resource's back.
func (c *fakeCloud) put(id string, tags map[string]string) *fakeNet {
	n := &fakeNet{ID: id, CIDR: "10.0.0.0/16", Tags: tags}
	c.nets[id] = n
	return n
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

func (c *fakeCloud) ID(n *fakeNet) string { return n.ID }

func (c *fakeCloud) Get(_ context.Context, id string) (*fakeNet, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enter("Get"); err != nil {
		return nil, false, err
	}
	n, ok := c.nets[id]
	return clone(n), ok, nil
}

func (c *fakeCloud) FindByTags(_ context.Context, tags map[string]string) (*fakeNet, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enter("FindByTags"); err != nil {
		return nil, false, err
	}
	for _, n := range c.nets {
		match := true
		for k, v := range tags {
			if n.Tags[k] != v {
				match = false
			}
		}
		if match {
			return clone(n), true, nil
		}
	}
	return nil, false, nil
}

func (c *fakeCloud) Create(_ context.Context, spec netSpec, token string, tags map[string]string) (*fakeNet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enter("Create"); err != nil {
		return nil, err
	}
	if id, ok := c.tokens[token]; ok {
		if n, exists := c.nets[id]; exists {
			return clone(n), nil
		}
	}
	c.next++
	n := &fakeNet{ID: fmt.Sprintf("net-%d", c.next), CIDR: spec.CIDR, State: c.state, Tags: maps.Clone(tags)}
	c.nets[n.ID] = n
	c.tokens[token] = n.ID
	if c.loseResponse {
		c.loseResponse = false
		return nil, errors.New("connection reset")
	}
	if c.emptyID {
		return &fakeNet{}, nil
	}
	return clone(n), nil
}

func (c *fakeCloud) Delete(_ context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enter("Delete"); err != nil {
		return err
	}
	if n, ok := c.nets[id]; ok && n.State == "deleting-slowly" {
		n.State = "deleting"
		return nil
	}
	delete(c.nets, id)
	return nil
}

func clone(n *fakeNet) *fakeNet {
	if n == nil {
		return nil
	}
	out := *n
	out.Tags = maps.Clone(n.Tags)
	return &out
}

// updatable is the fake cloud with in-place updates of the CIDR; a CIDR "/8" cannot be reached in place.
type updatable struct{ *fakeCloud }

func (u updatable) Diff(spec netSpec, n *fakeNet) ([]string, bool) {
	if spec.CIDR == n.CIDR {
		return nil, false
	}
	return []string{"cidr"}, spec.CIDR == "10.0.0.0/8"
}

func (u updatable) Update(_ context.Context, id string, spec netSpec, _ *fakeNet) (*fakeNet, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err := u.enter("Update"); err != nil {
		return nil, err
	}
	n, ok := u.nets[id]
	if !ok {
		return nil, fmt.Errorf("network %q not found", id)
	}
	n.CIDR = spec.CIDR
	return clone(n), nil
}

// withStates is the fake cloud reporting networks in a state other than "" as pending.
type withStates struct{ *fakeCloud }

func (withStates) Pending(n *fakeNet) (string, string, bool) {
	return "", "network is " + n.State, n.State != ""
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
