// Package scopetest has test doubles for code built on capkit's scope and reconcile packages. They are state-backed
// fake scopes (FakeClusterScope, FakeMachineScope) for service tests, and CountingClient for write budgets.
//
// CountingClient wraps any client.Client and counts the API writes (and reads) made through it, so that a
// provider's tests can assert the write budget of a reconcile: reconcile through it, Reset, reconcile again,
// and require.Zero(t, cc.Writes()) for a no-op reconcile of a provisioned machine (examples/memcloud/controllers
// does). From ExampleCountingClient:
//
//	cc := scopetest.NewCountingClient(c)
//	_ = cc.Create(ctx, cm)
//	fmt.Println(cc.Writes(), cc.Log()[0].Verb)
//	cc.Reset()
//	_ = cc.Get(ctx, client.ObjectKeyFromObject(cm), cm)
//	fmt.Println(cc.Writes(), cc.Reads())
package scopetest

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Write is one API write (or, in ReadLog, one read) recorded by a CountingClient.
type Write struct {
	// Verb is "create", "update", "patch", "delete", "deleteallof" or "apply"; "get" or "list" for reads.
	Verb string
	// SubResource is "status" (or another subresource) for subresource writes, "" otherwise.
	SubResource string
	// Kind is the Go type of the object written, e.g. "*v1alpha1.MemMachine".
	Kind string
	// Name is "namespace/name" of the object written.
	Name string
}

// CountingClient is a client.Client that records every write (create, update, patch, delete, apply), on
// objects and their subresources, and every read (get, list), before passing it on. It is safe for
// concurrent use. Reads through a manager's client are served by its cache; to count the HTTP requests of a
// reconcile, count at the transport instead (rest.Config.Wrap).
type CountingClient struct {
	client.Client
	mu     sync.Mutex
	writes []Write
	reads  []Write
}

// NewCountingClient wraps c.
func NewCountingClient(c client.Client) *CountingClient { return &CountingClient{Client: c} }

// Writes returns how many writes were made since creation or the last Reset.
func (c *CountingClient) Writes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.writes)
}

// Log returns a copy of the writes made since creation or the last Reset, in order.
func (c *CountingClient) Log() []Write {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Write(nil), c.writes...)
}

// Reads returns how many reads (get, list) were made since creation or the last Reset.
func (c *CountingClient) Reads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reads)
}

// ReadLog returns a copy of the reads made since creation or the last Reset, in order.
func (c *CountingClient) ReadLog() []Write {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Write(nil), c.reads...)
}

// Reset forgets the recorded writes and reads.
func (c *CountingClient) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes, c.reads = nil, nil
}

// Get records the read and forwards it.
func (c *CountingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.recordRead("get", key.String(), obj)
	return c.Client.Get(ctx, key, obj, opts...)
}

// List records the read and forwards it.
func (c *CountingClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c.recordRead("list", "", list)
	return c.Client.List(ctx, list, opts...)
}

func (c *CountingClient) recordRead(verb, name string, obj runtime.Object) {
	r := Write{Verb: verb, Name: name}
	if obj != nil {
		r.Kind = typeName(obj)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, r)
}

func (c *CountingClient) record(verb, sub string, obj runtime.Object) {
	w := Write{Verb: verb, SubResource: sub}
	if o, ok := obj.(client.Object); ok && o != nil {
		w.Name = o.GetNamespace() + "/" + o.GetName()
	}
	if obj != nil {
		w.Kind = typeName(obj)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, w)
}

// Create records and forwards.
func (c *CountingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.record("create", "", obj)
	return c.Client.Create(ctx, obj, opts...)
}

// Update records and forwards.
func (c *CountingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.record("update", "", obj)
	return c.Client.Update(ctx, obj, opts...)
}

// Patch records and forwards.
func (c *CountingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.record("patch", "", obj)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

// Apply records and forwards.
func (c *CountingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	c.record("apply", "", nil)
	return c.Client.Apply(ctx, obj, opts...)
}

// Delete records and forwards.
func (c *CountingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.record("delete", "", obj)
	return c.Client.Delete(ctx, obj, opts...)
}

// DeleteAllOf records and forwards.
func (c *CountingClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c.record("deleteallof", "", obj)
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

// Status returns a counting writer for the status subresource.
func (c *CountingClient) Status() client.SubResourceWriter { return c.SubResource("status") }

// SubResource returns a counting client for the subresource.
func (c *CountingClient) SubResource(sub string) client.SubResourceClient {
	return &countingSub{SubResourceClient: c.Client.SubResource(sub), parent: c, sub: sub}
}

type countingSub struct {
	client.SubResourceClient
	parent *CountingClient
	sub    string
}

func (s *countingSub) Create(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	s.parent.record("create", s.sub, obj)
	return s.SubResourceClient.Create(ctx, obj, subResource, opts...)
}

func (s *countingSub) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.parent.record("update", s.sub, obj)
	return s.SubResourceClient.Update(ctx, obj, opts...)
}

func (s *countingSub) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.parent.record("patch", s.sub, obj)
	return s.SubResourceClient.Patch(ctx, obj, patch, opts...)
}

func (s *countingSub) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	s.parent.record("apply", s.sub, nil)
	return s.SubResourceClient.Apply(ctx, obj, opts...)
}

func typeName(obj runtime.Object) string {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind != "" {
		return gvk.Kind
	}
	return fmt.Sprintf("%T", obj)
}
