// Package mycloud is the cloud of the documentation's provider. It is an in-memory service of VMs with the calls a
// cloud SDK has (describe, list by tags, run with an idempotency token, terminate), safe for concurrent use.
package mycloud

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"
)

// ErrNotFound is the error of a call on a VM that does not exist.
var ErrNotFound = errors.New("not found")

// IsNotFound reports whether err says that the VM does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// VM is a virtual machine as the cloud reports it.
type VM struct {
	ID         string
	Image      string
	Tags       map[string]string
	PrivateIP  string
	LaunchTime time.Time
}

// Client is the cloud's API.
type Client struct {
	mu     sync.Mutex
	vms    map[string]*VM
	tokens map[string]string // idempotency token → VM ID
	next   int
	now    func() time.Time
}

// New returns an empty cloud.
func New() *Client {
	return &Client{vms: map[string]*VM{}, tokens: map[string]string{}, now: time.Now}
}

// DescribeVM returns the VM id, or an error wrapping ErrNotFound.
func (c *Client) DescribeVM(_ context.Context, id string) (*VM, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	vm, ok := c.vms[id]
	if !ok {
		return nil, fmt.Errorf("cannot describe VM %q: %w", id, ErrNotFound)
	}
	return clone(vm), nil
}

// ListVMs returns the VMs that carry every tag of tags; a VM is listed as soon as RunVM returns.
func (c *Client) ListVMs(_ context.Context, tags map[string]string) ([]VM, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []VM
	for _, vm := range c.vms {
		if hasTags(vm.Tags, tags) {
			out = append(out, *clone(vm))
		}
	}
	return out, nil
}

// RunVM starts a VM of image with the user data and tags; a token used before returns that VM again.
func (c *Client) RunVM(_ context.Context, image string, _ []byte, token string, tags map[string]string) (*VM, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.tokens[token]; ok && c.vms[id] != nil {
		return clone(c.vms[id]), nil
	}
	c.next++
	vm := &VM{ID: fmt.Sprintf("vm-%d", c.next), Image: image, Tags: maps.Clone(tags),
		PrivateIP: fmt.Sprintf("10.0.0.%d", c.next), LaunchTime: c.now()}
	c.vms[vm.ID] = vm
	c.tokens[token] = vm.ID
	return clone(vm), nil
}

// TerminateVM deletes the VM id, or fails with an error wrapping ErrNotFound.
func (c *Client) TerminateVM(_ context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.vms[id]; !ok {
		return fmt.Errorf("cannot terminate VM %q: %w", id, ErrNotFound)
	}
	delete(c.vms, id)
	return nil
}

// Count returns how many VMs exist.
func (c *Client) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.vms)
}

func clone(vm *VM) *VM {
	c := *vm
	c.Tags = maps.Clone(vm.Tags)
	return &c
}

func hasTags(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}
