package cloud

import (
	"fmt"
	"slices"
)

// The methods of this file inspect and steer the cloud for tests and demos. Unlike the API
// methods they are never counted, delayed or failed.

// Count returns the number of live resources of a kind.
func (c *Cloud) Count(kind Kind) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live[kind]
}

// List returns the live resources of a kind in creation order, search lag ignored.
func (c *Cloud) List(kind Kind) []Resource {
	return c.list(func(r *record) bool { return r.kind == kind })
}

// All returns every live resource in creation order.
func (c *Cloud) All() []Resource {
	return c.list(func(*record) bool { return true })
}

func (c *Cloud) list(keep func(*record) bool) []Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	var recs []*record
	for _, r := range c.records {
		if keep(r) {
			recs = append(recs, r)
		}
	}
	slices.SortFunc(recs, bySeq)
	out := make([]Resource, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.view())
	}
	return out
}

// TotalCreated returns the number of resources created since New, of every kind, deleted
// ones included. ResetCounters does not reset it.
func (c *Cloud) TotalCreated() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.totalCreated
}

// InstanceUserData returns a copy of the user data a live instance was created with, or an
// error wrapping ErrNotFound.
func (c *Cloud) InstanceUserData(id string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, err := c.lookupLocked(KindInstance, id)
	if err != nil {
		return nil, fmt.Errorf("cannot get user data of instance %q: %w", id, err)
	}
	return slices.Clone(rec.userData), nil
}

// InstanceGroupUserData returns a copy of the current user data of a live instance group, the
// data its next instances will boot with, or an error wrapping ErrNotFound.
func (c *Cloud) InstanceGroupUserData(id string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, err := c.lookupLocked(KindInstanceGroup, id)
	if err != nil {
		return nil, fmt.Errorf("cannot get user data of instance group %q: %w", id, err)
	}
	return slices.Clone(rec.userData), nil
}

// StaticIPs returns the static addresses attached to live instances (InstanceSpec.StaticIPs), in
// every account: each address, in canonical form, maps to the ID of its instance. An address is
// released, and leaves the map, when its instance is deleted.
func (c *Cloud) StaticIPs() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.staticIPs))
	for a, id := range c.staticIPs {
		out[a.String()] = id
	}
	return out
}

// Flavors returns the flavors of the cloud's instances (WithFlavors).
func (c *Cloud) Flavors() []string { return slices.Clone(c.flavors) }

// SetInstanceState forces the state of a live instance, for example to InstanceFailed to test
// how a provider reports a machine that will never boot. An instance set to InstancePending stays
// pending for as many GetInstance calls as a new one (WithPendingGets, at least one), then runs.
// It ends a resize in progress (Instance.ResizingTo), as a failed resize: the instance keeps its
// old flavor.
func (c *Cloud) SetInstanceState(id string, state InstanceState) error {
	switch state {
	case InstancePending, InstanceRunning, InstanceStopped, InstanceFailed:
	default:
		return fmt.Errorf("cannot set state of instance %q: %w", id, invalid("state", state, "is not an instance state"))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, err := c.lookupLocked(KindInstance, id)
	if err != nil {
		return fmt.Errorf("cannot set state of instance %q: %w", id, err)
	}
	inst := rec.obj.(*Instance)
	inst.State, inst.ResizingTo = state, ""
	rec.pendingGets = 0
	if state == InstancePending {
		rec.pendingGets = max(c.pendingGets, 1) // as a new instance: pending for at least the next Get
	}
	return nil
}
