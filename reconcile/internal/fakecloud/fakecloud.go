// Package fakecloud is the in-test cloud of networks that the tests of reconcile and ensure share: idempotency
// tokens, tags, states and fault injection, and an in-memory resource tracker.
package fakecloud

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope"
)

// Spec is the parameters of a fake network.
type Spec struct{ CIDR string }

// Net is a fake network as the cloud reports it.
type Net struct {
	ID, CIDR, State string
	Tags            map[string]string
}

// Cloud is an in-test IaaS of networks with idempotency tokens, tags and fault injection.
type Cloud struct {
	// Mu guards the cloud; the methods take it.
	Mu       sync.Mutex
	next     int
	Nets     map[string]*Net
	tokens   map[string]string // token → id
	Calls    []string
	FailNext map[string]error // method → error returned once
	// LoseResponse makes Create create the network but return an error, as a lost response would.
	LoseResponse bool
	// EmptyID makes Create create the network but return one without an ID.
	EmptyID bool
	// CreateState is the state of the networks Create makes ("" is ready).
	CreateState string
	// BeforeCall runs before every cloud call, e.g. to check the finalizer is persisted.
	BeforeCall func(method string) error
	// Declared is what the cloud declares to ensure (ensure.Declarer). New declares what it does: idempotency
	// tokens and a search that lists a network as soon as Create returns. The zero value declares nothing, as a
	// Resource written before ensure.Guarantees: ensure's careful default.
	Declared ensure.Guarantees
}

// New returns an empty cloud, declaring its idempotency tokens and its immediate search.
func New() *Cloud {
	return &Cloud{Nets: map[string]*Net{}, tokens: map[string]string{}, FailNext: map[string]error{},
		Declared: ensure.Guarantees{Idempotency: ensure.IdempotentByToken, ImmediateSearch: true}}
}

// Guarantees returns Declared.
func (c *Cloud) Guarantees() ensure.Guarantees { return c.Declared }

// Put adds a network behind the Resource's back.
func (c *Cloud) Put(id string, tags map[string]string) *Net {
	n := &Net{ID: id, CIDR: "10.0.0.0/16", Tags: tags}
	c.Nets[id] = n
	return n
}

func (c *Cloud) enter(method string) error {
	c.Calls = append(c.Calls, method)
	if c.BeforeCall != nil {
		if err := c.BeforeCall(method); err != nil {
			return err
		}
	}
	if err, ok := c.FailNext[method]; ok {
		delete(c.FailNext, method)
		return err
	}
	return nil
}

// Validate refuses an empty CIDR.
func (c *Cloud) Validate(spec Spec) error {
	if spec.CIDR == "" {
		return errors.New("cidr must not be empty")
	}
	return nil
}

// ID returns the network's ID.
func (c *Cloud) ID(n *Net) string { return n.ID }

// Get returns the network id.
func (c *Cloud) Get(_ context.Context, id string) (*Net, bool, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if err := c.enter("Get"); err != nil {
		return nil, false, err
	}
	n, ok := c.Nets[id]
	return Clone(n), ok, nil
}

// FindByTags returns the first network carrying tags.
func (c *Cloud) FindByTags(_ context.Context, tags map[string]string) (*Net, bool, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if err := c.enter("FindByTags"); err != nil {
		return nil, false, err
	}
	for _, n := range c.Nets {
		match := true
		for k, v := range tags {
			if n.Tags[k] != v {
				match = false
			}
		}
		if match {
			return Clone(n), true, nil
		}
	}
	return nil, false, nil
}

// Create makes a network, once per token.
func (c *Cloud) Create(_ context.Context, spec Spec, token string, tags map[string]string) (*Net, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if err := c.enter("Create"); err != nil {
		return nil, err
	}
	if id, ok := c.tokens[token]; ok {
		if n, exists := c.Nets[id]; exists {
			return Clone(n), nil
		}
	}
	c.next++
	n := &Net{ID: fmt.Sprintf("net-%d", c.next), CIDR: spec.CIDR, State: c.CreateState, Tags: maps.Clone(tags)}
	c.Nets[n.ID] = n
	c.tokens[token] = n.ID
	if c.LoseResponse {
		c.LoseResponse = false
		return nil, errors.New("connection reset")
	}
	if c.EmptyID {
		return &Net{}, nil
	}
	return Clone(n), nil
}

// Delete removes the network id.
func (c *Cloud) Delete(_ context.Context, id string) error {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if err := c.enter("Delete"); err != nil {
		return err
	}
	if n, ok := c.Nets[id]; ok && n.State == "deleting-slowly" {
		n.State = "deleting"
		return nil
	}
	delete(c.Nets, id)
	return nil
}

// Clone returns a copy of n.
func Clone(n *Net) *Net {
	if n == nil {
		return nil
	}
	out := *n
	out.Tags = maps.Clone(n.Tags)
	return &out
}

// Updatable is the fake cloud with in-place updates of the CIDR; a CIDR "/8" cannot be reached in place.
type Updatable struct{ *Cloud }

// Diff reports a changed CIDR.
func (u Updatable) Diff(spec Spec, n *Net) ([]string, bool) {
	if spec.CIDR == n.CIDR {
		return nil, false
	}
	return []string{"cidr"}, spec.CIDR == "10.0.0.0/8"
}

// Update changes the CIDR.
func (u Updatable) Update(_ context.Context, id string, spec Spec, _ *Net) (*Net, error) {
	u.Mu.Lock()
	defer u.Mu.Unlock()
	if err := u.enter("Update"); err != nil {
		return nil, err
	}
	n, ok := u.Nets[id]
	if !ok {
		return nil, fmt.Errorf("network %q not found", id)
	}
	n.CIDR = spec.CIDR
	return Clone(n), nil
}

// WithStates is the fake cloud reporting networks in a state other than "" as pending.
type WithStates struct{ *Cloud }

// Pending reports a network with a state as pending.
func (WithStates) Pending(n *Net) (string, string, bool) {
	return "", "network is " + n.State, n.State != ""
}

// Count returns how many networks exist.
func (c *Cloud) Count() int {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	return len(c.Nets)
}

// Tracker is an in-memory scope.ResourceTracker.
type Tracker struct {
	Key       string
	KeyErr    error
	IDs       map[string]string
	Persisted map[string]string
	PatchErr  error
	Patches   int
}

// NewTracker returns a tracker of ownership key "owner1".
func NewTracker() *Tracker {
	return &Tracker{Key: "owner1", IDs: map[string]string{}, Persisted: map[string]string{}}
}

// OwnershipKey returns Key and KeyErr.
func (t *Tracker) OwnershipKey() (string, error) { return t.Key, t.KeyErr }

// ResourceID returns the tracked ID of key.
func (t *Tracker) ResourceID(key string) (string, bool) {
	id, ok := t.IDs[key]
	return id, ok
}

// SetResourceID tracks id for key.
func (t *Tracker) SetResourceID(key, id string) error { t.IDs[key] = id; return nil }

// DeleteResourceID forgets key.
func (t *Tracker) DeleteResourceID(key string) error { delete(t.IDs, key); return nil }

// PatchNow persists the tracked IDs unless PatchErr is set.
func (t *Tracker) PatchNow(context.Context) error {
	t.Patches++
	if t.PatchErr != nil {
		return t.PatchErr
	}
	t.Persisted = maps.Clone(t.IDs)
	return nil
}

var (
	_ scope.ResourceTracker = (*Tracker)(nil)
	_ ensure.Declarer       = (*Cloud)(nil)
)

// Recorder is a step.EventRecorder that keeps events in memory.
type Recorder struct {
	mu     sync.Mutex
	events []string
}

// Eventf records an event.
func (r *Recorder) Eventf(_ runtime.Object, _ runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, eventtype+" "+reason+" "+action+" "+fmt.Sprintf(note, args...))
}

// All returns every event as "type reason action note", in order.
func (r *Recorder) All() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// Reasons returns "type reason" of every event, in order.
func (r *Recorder) Reasons() []string {
	var out []string
	for _, e := range r.All() {
		f := strings.Fields(e)
		out = append(out, f[0]+" "+f[1])
	}
	return out
}
