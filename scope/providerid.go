package scope

import (
	"context"
	"fmt"

	"github.com/capkit/capkit/contract"
)

// ProviderIDTracker returns a ResourceTracker that keeps the cloud ID of the resource key in spec.providerID
// of obj (the InfraMachine, or contract.Unstructured of it) instead of the resource-ID map, for the resource
// the provider ID names (a machine's VM or instance).
// format turns a cloud ID into a provider ID ("i-1" → "memcloud://i-1"); parse does the reverse and fails on
// a provider ID it does not understand. Every other key is passed to s, and a checkpoint after one of them
// changed is a full PatchNow.
//
// The provider ID is the durable record of the instance, so Ensure's checkpoint after a create is one API
// write: PatchNow sends metadata and spec only when s implements SpecPatcher (the scopes of this package
// do), and the status changes go out with Close. Provisioning a machine then costs three writes: the
// finalizer and ownership key, spec.providerID, and status at Close. A crash before the providerID is
// persisted loses nothing: the next Ensure adopts the instance by its ownership tags, or gets it back from
// the cloud by its idempotency token.
//
// Cluster API treats spec.providerID as set once, so SetResourceID refuses to replace a provider ID that
// names another resource, and DeleteResourceID keeps it: after the instance is deleted the provider ID still
// says which one the machine had.
//
// When s is a PendingTracker the tracker returned is one too, and passes the notes of every key to s; when s
// is not, neither is the tracker returned (callers test for it with a type assertion). Notes are metadata, so
// the one-write checkpoint carries them.
func ProviderIDTracker(t ResourceTracker, obj contract.ProviderIDAccessor, key string, format func(id string) string, parse func(providerID string) (string, error)) (ResourceTracker, error) {
	switch {
	case t == nil || obj == nil:
		return nil, fmt.Errorf("cannot track resource %q in spec.providerID: tracker and object must not be nil: %w", key, ErrInvalidInput)
	case format == nil || parse == nil:
		return nil, fmt.Errorf("cannot track resource %q in spec.providerID: format and parse must not be nil: %w", key, ErrInvalidInput)
	}
	if err := ValidateResourceKey(key); err != nil {
		return nil, fmt.Errorf("cannot track a resource in spec.providerID: %w", err)
	}
	pt := &providerIDTracker{ResourceTracker: t, obj: obj, key: key, format: format, parse: parse}
	if p, ok := t.(PendingTracker); ok {
		return &pendingProviderIDTracker{providerIDTracker: pt, pending: p}, nil
	}
	return pt, nil
}

type providerIDTracker struct {
	ResourceTracker
	obj    contract.ProviderIDAccessor
	key    string
	format func(string) string
	parse  func(string) (string, error)
	// otherKeys is set when another key's ID changed since the last PatchNow: that checkpoint must carry
	// the resource-ID map in status too.
	otherKeys bool
}

// ResourceID returns the cloud ID in spec.providerID for the tracked key.
func (t *providerIDTracker) ResourceID(key string) (string, bool) {
	if key != t.key {
		return t.ResourceTracker.ResourceID(key)
	}
	pid := t.obj.GetProviderID()
	if pid == "" {
		return "", false
	}
	id, err := t.parse(pid)
	return id, err == nil && id != ""
}

// SetResourceID writes the provider ID of id into spec.providerID for the tracked key.
func (t *providerIDTracker) SetResourceID(key, id string) error {
	if key != t.key {
		t.otherKeys = true
		return t.ResourceTracker.SetResourceID(key, id)
	}
	if id == "" {
		return fmt.Errorf("cannot record the resource ID of %q in spec.providerID: id must not be empty: %w", key, ErrInvalidInput)
	}
	pid := t.format(id)
	if cur := t.obj.GetProviderID(); cur != "" && cur != pid {
		return fmt.Errorf("cannot record resource %q (id %q) in spec.providerID: it already holds %q and is set once: %w", key, id, cur, ErrInvalidInput)
	}
	if back, err := t.parse(pid); err != nil || back != id {
		return fmt.Errorf("cannot record resource %q (id %q) in spec.providerID: provider ID %q does not parse back to it: %w", key, id, pid, ErrInvalidInput)
	}
	t.obj.SetProviderID(pid)
	return nil
}

// DeleteResourceID keeps spec.providerID for the tracked key (it is set once) and forgets other keys.
func (t *providerIDTracker) DeleteResourceID(key string) error {
	if key != t.key {
		t.otherKeys = true
		return t.ResourceTracker.DeleteResourceID(key)
	}
	return nil
}

// PatchNow persists metadata and spec only when the store can (SpecPatcher) and no other key changed since
// the last checkpoint; else it persists everything.
func (t *providerIDTracker) PatchNow(ctx context.Context) error {
	if !t.otherKeys {
		return PatchSpec(ctx, t.ResourceTracker)
	}
	if err := t.ResourceTracker.PatchNow(ctx); err != nil {
		return err
	}
	t.otherKeys = false
	return nil
}

// pendingProviderIDTracker is a providerIDTracker over a PendingTracker, whose notes it passes on.
type pendingProviderIDTracker struct {
	*providerIDTracker
	pending PendingTracker
}

var _ PendingTracker = (*pendingProviderIDTracker)(nil)

// Pending returns the note the wrapped tracker holds for key.
func (t *pendingProviderIDTracker) Pending(key string) (string, bool) { return t.pending.Pending(key) }

// SetPending records note for key in the wrapped tracker.
func (t *pendingProviderIDTracker) SetPending(key, note string) error {
	return t.pending.SetPending(key, note)
}

// ClearPending forgets the note of key in the wrapped tracker.
func (t *pendingProviderIDTracker) ClearPending(key string) error { return t.pending.ClearPending(key) }

// PatchSpec persists the metadata and spec changes of p now and leaves its status for later when p is a
// SpecPatcher (the scopes of this package are); otherwise it calls PatchNow. Use it after setting a spec
// field that must survive a crash or that status depends on, such as an endpoint that bumps the generation.
func PatchSpec(ctx context.Context, p Patcher) error {
	if p == nil {
		return fmt.Errorf("cannot patch spec: patcher is nil: %w", ErrInvalidInput)
	}
	if sp, ok := p.(SpecPatcher); ok {
		return sp.PatchSpecNow(ctx)
	}
	return p.PatchNow(ctx)
}
