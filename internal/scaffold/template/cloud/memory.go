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
	lbs     map[string]*LoadBalancer
	insts   map[string]*Instance
	tokens  map[string]string // idempotency token → ID
	created []string          // IDs in creation order
}

var _ Cloud = (*Memory)(nil)

// NewMemory returns an empty in-memory cloud.
func NewMemory() *Memory {
	return &Memory{lbs: map[string]*LoadBalancer{}, insts: map[string]*Instance{}, tokens: map[string]string{}}
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
	id, existing := m.newID("lb", token)
	if existing {
		lb, ok := m.lbs[id]
		if !ok {
			return nil, fmt.Errorf("cannot create load balancer %q: token of deleted load balancer %q: %w", spec.Name, id, ErrInvalidParameter)
		}
		c := *lb
		return &c, nil
	}
	lb := &LoadBalancer{ID: id, Name: spec.Name, Port: spec.Port, Host: id + ".lb.quux.example", Tags: maps.Clone(tags)}
	m.lbs[id] = lb
	c := *lb
	return &c, nil
}

// GetLoadBalancer implements LoadBalancers.
func (m *Memory) GetLoadBalancer(_ context.Context, id string) (*LoadBalancer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lb, ok := m.lbs[id]
	if !ok {
		return nil, fmt.Errorf("cannot get load balancer %q: %w", id, ErrNotFound)
	}
	c := *lb
	return &c, nil
}

// FindLoadBalancers implements LoadBalancers.
func (m *Memory) FindLoadBalancers(_ context.Context, tags map[string]string) ([]LoadBalancer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []LoadBalancer
	for _, id := range m.created {
		if lb, ok := m.lbs[id]; ok && hasTags(lb.Tags, tags) {
			out = append(out, *lb)
		}
	}
	return out, nil
}

// DeleteLoadBalancer implements LoadBalancers.
func (m *Memory) DeleteLoadBalancer(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.lbs[id]; !ok {
		return fmt.Errorf("cannot delete load balancer %q: %w", id, ErrNotFound)
	}
	delete(m.lbs, id)
	return nil
}

// CreateInstance implements Instances.
func (m *Memory) CreateInstance(_ context.Context, spec InstanceSpec, token string, tags map[string]string) (*Instance, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("cannot create instance %q: %w", spec.Name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	id, existing := m.newID("i", token)
	if existing {
		inst, ok := m.insts[id]
		if !ok {
			return nil, fmt.Errorf("cannot create instance %q: token of deleted instance %q: %w", spec.Name, id, ErrInvalidParameter)
		}
		c := *inst
		return &c, nil
	}
	inst := &Instance{ID: id, Name: spec.Name, Image: spec.Image, Type: spec.Type, State: InstancePending,
		PrivateIP: fmt.Sprintf("10.0.%d.%d", m.next/250%250, m.next%250+1), Tags: maps.Clone(tags)}
	m.insts[id] = inst
	c := *inst
	return &c, nil
}

// GetInstance implements Instances; a pending instance is running from the next read on.
func (m *Memory) GetInstance(_ context.Context, id string) (*Instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	inst, ok := m.insts[id]
	if !ok {
		return nil, fmt.Errorf("cannot get instance %q: %w", id, ErrNotFound)
	}
	c := *inst
	inst.State = InstanceRunning
	return &c, nil
}

// FindInstances implements Instances.
func (m *Memory) FindInstances(_ context.Context, tags map[string]string) ([]Instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Instance
	for _, id := range m.created {
		if inst, ok := m.insts[id]; ok && hasTags(inst.Tags, tags) {
			out = append(out, *inst)
		}
	}
	return out, nil
}

// DeleteInstance implements Instances.
func (m *Memory) DeleteInstance(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.insts[id]; !ok {
		return fmt.Errorf("cannot delete instance %q: %w", id, ErrNotFound)
	}
	delete(m.insts, id)
	return nil
}

// Count returns how many resources exist.
func (m *Memory) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.lbs) + len(m.insts)
}

// Tagged returns one line per resource that carries the tag key with one of values ("LoadBalancer lb-000001"),
// sorted: what is left of the owners of values.
func (m *Memory) Tagged(key string, values ...string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, lb := range m.lbs {
		if slices.Contains(values, lb.Tags[key]) {
			out = append(out, "LoadBalancer "+lb.ID)
		}
	}
	for _, inst := range m.insts {
		if slices.Contains(values, inst.Tags[key]) {
			out = append(out, "Instance "+inst.ID)
		}
	}
	slices.Sort(out)
	return out
}
