package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"

	"github.com/capkit/capkit/scope"
)

// Tags that Ensure puts on every resource it creates, and searches for when it adopts one.
const (
	// TagOwnershipKey holds the ownership key of the infra object that owns the resource; it is the name
	// of the label that holds the key on the infra object.
	TagOwnershipKey = scope.OwnershipKeyLabel
	// TagResourceKey holds the resource key, e.g. "network" or "vm".
	TagResourceKey = "capkit.io/resource"
)

// Resource is the lifecycle of one kind of cloud resource, written by the provider against its cloud SDK.
// S is the provider's description of the resource it wants (its parameters). Every method but Validate
// calls the cloud; Ensure and EnsureDeleted decide which to call.
type Resource[S any] interface {
	// Validate checks spec before any cloud call; an error makes Ensure return a TerminalError with
	// ReasonInvalidParameters, so that bad parameters never reach the cloud API.
	Validate(spec S) error
	// Get reports whether the resource with cloud ID id still exists. A resource being deleted does not.
	Get(ctx context.Context, id string) (exists bool, err error)
	// FindByTags returns the ID of the resource that carries all tags, and whether there is one.
	FindByTags(ctx context.Context, tags map[string]string) (id string, found bool, err error)
	// Create creates the resource with tags and returns its ID. token is an idempotency token: a cloud
	// that supports one must return the resource it created before for the same token instead of creating
	// a second one; Ensure passes the same token on every attempt for the same owner and key.
	Create(ctx context.Context, spec S, token string, tags map[string]string) (id string, err error)
	// Delete deletes the resource with cloud ID id; deleting a resource that does not exist is not an error.
	Delete(ctx context.Context, id string) error
}

// Action is what Ensure did.
type Action string

// Actions of Ensure.
const (
	// ActionFound means the tracked ID still exists in the cloud: nothing was called but Get.
	ActionFound Action = "Found"
	// ActionAdopted means the resource was found by its ownership tags and its ID recorded.
	ActionAdopted Action = "Adopted"
	// ActionCreated means the resource was created and its ID recorded.
	ActionCreated Action = "Created"
)

// EnsureResult is the outcome of Ensure.
type EnsureResult struct {
	// ID is the cloud ID of the resource, recorded in the tracker and persisted; use it for further calls
	// (e.g. to build the providerID).
	ID string
	// Action says whether the resource was found, adopted or created; a reconciler may emit an event when
	// it is not ActionFound.
	Action Action
}

// EnsureOption configures Ensure and EnsureDeleted.
type EnsureOption func(*ensureOptions)

type ensureOptions struct{ tags map[string]string }

// WithTags adds tags to the created resource (e.g. the cluster name); the ownership tags always win.
func WithTags(tags map[string]string) EnsureOption {
	return func(o *ensureOptions) { maps.Copy(o.tags, tags) }
}

// OwnershipTags returns the tags that mark a resource as key of the owner with ownershipKey.
func OwnershipTags(ownershipKey, key string) map[string]string {
	return map[string]string{TagOwnershipKey: ownershipKey, TagResourceKey: key}
}

// IdempotencyToken returns the token Ensure passes to Create for a resource key of an owner: the first 32
// hex digits of SHA-256 over both, so the same resource always gets the same token, across crashes,
// controller restarts and clusterctl move.
func IdempotencyToken(ownershipKey, key string) string {
	sum := sha256.Sum256([]byte(ownershipKey + "\x00" + key))
	return hex.EncodeToString(sum[:16])
}

// Ensure makes sure the cloud resource key of the tracker's owner exists, without ever creating two:
//
//  1. spec is validated (no cloud call on bad parameters: TerminalError, ReasonInvalidParameters);
//  2. a tracked ID that still exists is returned (ActionFound);
//  3. otherwise a resource carrying the ownership tags is adopted (ActionAdopted);
//  4. otherwise the resource is created with the ownership tags and the idempotency token (ActionCreated).
//
// After 3 and 4 the ID is recorded and persisted at once with PatchNow. When Create fails, or the process
// dies before the ID is persisted, the next Ensure adopts the resource by its tags, or calls Create with the
// same token, which an idempotent cloud answers with the same resource. Cloud errors are returned as
// they are: retried with backoff, unless the Resource made them terminal.
func Ensure[S any](ctx context.Context, t scope.ResourceTracker, key string, r Resource[S], spec S, opts ...EnsureOption) (EnsureResult, error) {
	if t == nil || r == nil {
		return EnsureResult{}, fmt.Errorf("cannot ensure resource %q: tracker and resource must not be nil", key)
	}
	if err := scope.ValidateResourceKey(key); err != nil {
		return EnsureResult{}, Terminal(ReasonInvalidParameters, fmt.Errorf("cannot ensure resource: %w", err))
	}
	if err := r.Validate(spec); err != nil {
		return EnsureResult{}, Terminal(ReasonInvalidParameters, fmt.Errorf("cannot ensure resource %q: invalid parameters: %w", key, err))
	}
	ownershipKey, err := t.OwnershipKey()
	if err != nil {
		return EnsureResult{}, fmt.Errorf("cannot ensure resource %q: %w", key, err)
	}
	o := ensureOptions{tags: map[string]string{}}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if id, ok := t.ResourceID(key); ok {
		exists, err := r.Get(ctx, id)
		if err != nil {
			return EnsureResult{}, fmt.Errorf("cannot get resource %q (id %q): %w", key, id, err)
		}
		if exists {
			return EnsureResult{ID: id, Action: ActionFound}, nil
		}
	}
	tags := maps.Clone(o.tags)
	maps.Copy(tags, OwnershipTags(ownershipKey, key))
	id, found, err := r.FindByTags(ctx, OwnershipTags(ownershipKey, key))
	if err != nil {
		return EnsureResult{}, fmt.Errorf("cannot find resource %q by tags: %w", key, err)
	}
	action := ActionAdopted
	if !found {
		id, err = r.Create(ctx, spec, IdempotencyToken(ownershipKey, key), tags)
		if err != nil {
			return EnsureResult{}, fmt.Errorf("cannot create resource %q: %w", key, err)
		}
		if id == "" {
			return EnsureResult{}, fmt.Errorf("cannot create resource %q: the cloud returned an empty id", key)
		}
		action = ActionCreated
	}
	if err := t.SetResourceID(key, id); err != nil {
		return EnsureResult{}, fmt.Errorf("cannot record resource %q (id %q): %w", key, id, err)
	}
	if err := t.PatchNow(ctx); err != nil {
		return EnsureResult{}, fmt.Errorf("cannot persist resource %q (id %q): %w", key, id, err)
	}
	return EnsureResult{ID: id, Action: action}, nil
}

// EnsureDeleted deletes the cloud resource key of the tracker's owner: the tracked ID and every resource
// still carrying its ownership tags (one created by an attempt whose ID was never recorded). It reports
// done once none exists, and then forgets the ID (persisted by the next PatchNow or Close). When it is not
// done the caller requeues, as cloud deletes are often asynchronous.
func EnsureDeleted[S any](ctx context.Context, t scope.ResourceTracker, key string, r Resource[S]) (done bool, err error) {
	if t == nil || r == nil {
		return false, fmt.Errorf("cannot delete resource %q: tracker and resource must not be nil", key)
	}
	pending := false
	if id, ok := t.ResourceID(key); ok {
		gone, err := deleteIfExists(ctx, r, key, id)
		if err != nil {
			return false, err
		}
		pending = !gone
	}
	ownershipKey, err := t.OwnershipKey()
	switch {
	case errors.Is(err, scope.ErrOwnershipKeyNotPersisted):
		// Nothing was ever created with this key: Ensure refuses to run before it is persisted.
	case err != nil:
		return false, fmt.Errorf("cannot delete resource %q: %w", key, err)
	default:
		tagged, found, err := r.FindByTags(ctx, OwnershipTags(ownershipKey, key))
		if err != nil {
			return false, fmt.Errorf("cannot find resource %q by tags: %w", key, err)
		}
		if found {
			gone, err := deleteIfExists(ctx, r, key, tagged)
			if err != nil {
				return false, err
			}
			pending = pending || !gone
		}
	}
	if pending {
		return false, nil
	}
	if err := t.DeleteResourceID(key); err != nil {
		return false, err
	}
	return true, nil
}

// deleteIfExists deletes id unless it is gone and reports whether it is gone afterwards.
func deleteIfExists[S any](ctx context.Context, r Resource[S], key, id string) (bool, error) {
	exists, err := r.Get(ctx, id)
	if err != nil {
		return false, fmt.Errorf("cannot get resource %q (id %q): %w", key, id, err)
	}
	if !exists {
		return true, nil
	}
	if err := r.Delete(ctx, id); err != nil {
		return false, fmt.Errorf("cannot delete resource %q (id %q): %w", key, id, err)
	}
	exists, err = r.Get(ctx, id)
	if err != nil {
		return false, fmt.Errorf("cannot get resource %q (id %q): %w", key, id, err)
	}
	return !exists, nil
}
