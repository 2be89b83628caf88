package cloud

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Memory is an in-memory Cloud, safe for concurrent use: the cloud of the provider's tests, and of its
// manager until a real cloud SDK replaces it. An instance is pending until it has been read once.
type Memory struct {
	mu      sync.Mutex
	next    int
	lbs     table[LoadBalancer]
	insts   table[Instance]
	tokens  map[string]string // idempotency token → ID
	created []string          // IDs in creation order
}

var _ Cloud = (*Memory)(nil)

// NewMemory returns an empty in-memory cloud.
func NewMemory() *Memory {
	return &Memory{
		lbs: table[LoadBalancer]{kind: "LoadBalancer", noun: "load balancer", items: map[string]*LoadBalancer{},
			tags: func(lb *LoadBalancer) map[string]string { return lb.Tags }},
		insts: table[Instance]{kind: "Instance", noun: "instance", items: map[string]*Instance{},
			tags: func(i *Instance) map[string]string { return i.Tags }},
		tokens: map[string]string{},
	}
}

// table holds the resources of one kind by ID. Its methods are called with Memory.mu held and return
// copies, never the stored resources.
type table[T any] struct {
	kind, noun string // "LoadBalancer" in Tagged, "load balancer" in errors
	items      map[string]*T
	tags       func(*T) map[string]string
}

// create stores the resource build makes with a new ID, or returns the one made with token before.
func (t table[T]) create(m *Memory, prefix, name, token string, build func(id string) *T) (*T, error) {
	id, existing := m.newID(prefix, token)
	if existing {
		if _, ok := t.items[id]; !ok {
			return nil, fmt.Errorf("cannot create %s %q: token of deleted %s %q: %w", t.noun, name, t.noun, id, ErrInvalidParameter)
		}
	} else {
		t.items[id] = build(id)
	}
	c := *t.items[id]
	return &c, nil
}

func (t table[T]) get(id string) (*T, error) {
	r, ok := t.items[id]
	if !ok {
		return nil, fmt.Errorf("cannot get %s %q: %w", t.noun, id, ErrNotFound)
	}
	c := *r
	return &c, nil
}

// find returns the resources that carry every tag of tags, in creation order.
func (t table[T]) find(created []string, tags map[string]string) []T {
	var out []T
	for _, id := range created {
		if r, ok := t.items[id]; ok && hasTags(t.tags(r), tags) {
			out = append(out, *r)
		}
	}
	return out
}

func (t table[T]) delete(id string) error {
	if _, ok := t.items[id]; !ok {
		return fmt.Errorf("cannot delete %s %q: %w", t.noun, id, ErrNotFound)
	}
	delete(t.items, id)
	return nil
}

// tagged returns "KIND ID" for each resource whose tag key has one of values.
func (t table[T]) tagged(key string, values []string) []string {
	var out []string
	for id, r := range t.items {
		if slices.Contains(values, t.tags(r)[key]) {
			out = append(out, t.kind+" "+id)
		}
	}
	return out
}

func (m *Memory) newID(prefix, token string) (id string, existing bool) {
	if id, ok := m.tokens[token]; ok && token != "" {
		return id, true
	}
	m.next++
	id = fmt.Sprintf("%s-%06d", prefix, m.next)
	if token != "" {
		m.tokens[token] = id
	}
	m.created = append(m.created, id)
	return id, false
}

// hasTags reports whether have holds every tag of want.
func hasTags(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// CreateLoadBalancer implements LoadBalancers.
func (m *Memory) CreateLoadBalancer(_ context.Context, spec LoadBalancerSpec, token string, tags map[string]string) (*LoadBalancer, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("cannot create load balancer %q: %w", spec.Name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lbs.create(m, "lb", spec.Name, token, func(id string) *LoadBalancer {
		return &LoadBalancer{ID: id, Name: spec.Name, Port: spec.Port, Host: id + ".lb.quux.example", Tags: maps.Clone(tags)}
	})
}

// GetLoadBalancer implements LoadBalancers.
func (m *Memory) GetLoadBalancer(_ context.Context, id string) (*LoadBalancer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lbs.get(id)
}

// FindLoadBalancers implements LoadBalancers.
func (m *Memory) FindLoadBalancers(_ context.Context, tags map[string]string) ([]LoadBalancer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lbs.find(m.created, tags), nil
}

// DeleteLoadBalancer implements LoadBalancers.
func (m *Memory) DeleteLoadBalancer(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lbs.delete(id)
}

// CreateInstance implements Instances.
func (m *Memory) CreateInstance(_ context.Context, spec InstanceSpec, token string, tags map[string]string) (*Instance, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("cannot create instance %q: %w", spec.Name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.insts.create(m, "i", spec.Name, token, func(id string) *Instance {
		return &Instance{ID: id, Name: spec.Name, Image: spec.Image, Type: spec.Type, State: InstancePending,
			PrivateIP: fmt.Sprintf("10.0.%d.%d", m.next/250%250, m.next%250+1), Tags: maps.Clone(tags)}
	})
}

// GetInstance implements Instances; a pending instance is running from the next read on.
func (m *Memory) GetInstance(_ context.Context, id string) (*Instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	inst, err := m.insts.get(id)
	if err == nil {
		m.insts.items[id].State = InstanceRunning
	}
	return inst, err
}

// FindInstances implements Instances.
func (m *Memory) FindInstances(_ context.Context, tags map[string]string) ([]Instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.insts.find(m.created, tags), nil
}

// DeleteInstance implements Instances.
func (m *Memory) DeleteInstance(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.insts.delete(id)
}

// Count returns how many resources exist.
func (m *Memory) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.lbs.items) + len(m.insts.items)
}

// Tagged returns one line per resource that carries the tag key with one of values ("LoadBalancer lb-000001"),
// sorted: what is left of the owners of values.
func (m *Memory) Tagged(key string, values ...string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append(m.lbs.tagged(key, values), m.insts.tagged(key, values)...)
	slices.Sort(out)
	return out
}
