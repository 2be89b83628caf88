package cloud

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// WithAsyncCreates makes every create an operation that runs for d on the cloud's clock (WithClock),
// as in clouds whose create calls return an operation: the call returns an *AcceptedError (match
// ErrAccepted, read the operation's ID with Accepted) instead of the resource, and the resource
// exists for the API (Get, Find, Delete, as a parent) only once the operation is done; GetOperation
// reports it. Parameters are checked when the call is made, and the resource's quota, addresses
// and ID are taken then (it counts as created: Stats.Created, TotalCreated); an operation drawn to
// fail (FaultConfig.InOperation, FailNext with InOperation) takes and creates nothing, and its
// parameters are checked no further than its name and tags. A create with an idempotency token seen before returns the same
// operation while it runs, and the resource once it is done. Default 0: creates are synchronous.
func WithAsyncCreates(d time.Duration) Option {
	return func(c *Cloud) { c.asyncCreates = d }
}

// WithSearchLag makes Find list a resource only d after it exists (after its create returned, or
// its operation ended: WithAsyncCreates), as in clouds whose tag index lags; Get sees it at once.
// The lag is time on the cloud's clock (WithClock); FaultConfig.SearchLag is a lag in Find calls,
// for fault injection, and adds to it. Default 0: Find lists a resource as soon as it exists.
func WithSearchLag(d time.Duration) Option {
	return func(c *Cloud) { c.searchLag = d }
}

// WithoutTokens makes the cloud ignore idempotency tokens, as clouds without any: every create
// makes a new resource, whatever its IdempotencyToken, and ErrTokenReused and ErrTokenMismatch
// never happen.
func WithoutTokens() Option {
	return func(c *Cloud) { c.noTokens = true }
}

// Behavior is how the cloud's creates, searches and idempotency tokens behave, as set by
// WithAsyncCreates, WithSearchLag and WithoutTokens when it was created (they never change
// afterwards): what a provider declares to capkit about its cloud.
type Behavior struct {
	// AsyncCreates is how long a create operation runs; 0 when creates are synchronous.
	AsyncCreates time.Duration
	// SearchLag is how long after a resource exists Find lists it.
	SearchLag time.Duration
	// IgnoresTokens is true when creates ignore their idempotency token.
	IgnoresTokens bool
}

// Behavior returns how the cloud's creates, searches and tokens behave.
func (c *Cloud) Behavior() Behavior {
	return Behavior{AsyncCreates: c.asyncCreates, SearchLag: c.searchLag, IgnoresTokens: c.noTokens}
}

// Operation is a create the cloud runs asynchronously (WithAsyncCreates), as GetOperation
// reports it.
type Operation struct {
	// ID is the operation's ID: "op-", the ID prefix of the kind it creates and 8 hex digits,
	// for example "op-net-1f2e3d4c".
	ID string
	// Kind is the kind of the resource the operation creates.
	Kind Kind
	// StartedAt is when the create was accepted, from the clock set with WithClock.
	StartedAt time.Time
	// Done is true once the operation has ended, successfully or not.
	Done bool
	// ResourceID is the ID of the resource the operation created, set once it is done unless it
	// failed. The resource may have been deleted since.
	ResourceID string
	// Error says why the operation failed, set once it is done when it failed; nothing was
	// created then.
	Error string
}

// Failed reports whether the operation ended without creating its resource.
func (o *Operation) Failed() bool { return o.Done && o.Error != "" }

// operation is the internal state of a create operation. It is guarded by Cloud.mu.
type operation struct {
	id, account string
	kind        Kind
	resourceID  string // the resource it creates; "" when it fails
	startedAt   time.Time
	endsAt      time.Time
}

// doneAt reports whether the operation has ended at now.
func (o *operation) doneAt(now time.Time) bool { return !now.Before(o.endsAt) }

// failed reports whether the operation creates nothing.
func (o *operation) failed() bool { return o.resourceID == "" }

func (o *operation) view(now time.Time) *Operation {
	v := &Operation{ID: o.id, Kind: o.kind, StartedAt: o.startedAt, Done: o.doneAt(now)}
	switch {
	case !v.Done:
	case o.failed():
		v.Error = fmt.Sprintf("injected fault in the operation of %s: nothing was created", VerbCreate.On(o.kind))
	default:
		v.ResourceID = o.resourceID
	}
	return v
}

// operationPrefix starts every operation ID.
const operationPrefix = "op-"

// operationKind returns the kind whose create the operation id runs, or ErrInvalidParameter.
func operationKind(id string) (Kind, error) {
	rest, ok := strings.CutPrefix(id, operationPrefix)
	if ok {
		for _, k := range Kinds() {
			if strings.HasPrefix(rest, k.Prefix()) {
				return k, nil
			}
		}
	}
	return "", invalid("id", id, fmt.Sprintf("is not an operation ID (want prefix %q and a kind's prefix)", operationPrefix))
}

// GetOperation returns the create operation with the given ID (see WithAsyncCreates), or an error
// wrapping ErrNotFound; an operation of another account is not found. It is an API call like
// Get, counted as VerbPoll on the operation's kind; an ID that is not an operation's fails with
// ErrInvalidParameter before the call is counted.
func (c *Cloud) GetOperation(ctx context.Context, id string) (*Operation, error) {
	o, err := c.doGetOperation(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("cannot get operation %q: %w", id, err)
	}
	return o, nil
}

func (c *Cloud) doGetOperation(ctx context.Context, id string) (*Operation, error) {
	kind, err := operationKind(id)
	if err != nil {
		return nil, err
	}
	k, err := c.begin(ctx, VerbPoll.On(kind))
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.ops[id]
	if !ok || o.account != k.owner() {
		return nil, ErrNotFound
	}
	return o.view(c.now()), nil
}

// CompleteOperation ends the create operation id now, as if its time had passed: it fails if it
// was to fail, otherwise its resource exists from now on (and is listed by Find after the search
// lag). Ending an operation that is done does nothing. Like the inspection methods it is for tests
// and demos: it is not counted, delayed or failed, and sees every account.
func (c *Cloud) CompleteOperation(id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.ops[id]
	if !ok {
		return fmt.Errorf("cannot complete operation %q: %w", id, ErrNotFound)
	}
	now := c.now()
	if o.doneAt(now) {
		return nil
	}
	o.endsAt = now
	if rec, ok := c.records[o.resourceID]; ok {
		c.scheduleLocked(rec, now)
		for _, m := range rec.members {
			c.scheduleLocked(c.records[m], now)
		}
	}
	return nil
}

// startLocked makes the create of req for the call k: at once on a cloud with synchronous creates,
// else as an operation, returned (with the record it creates, nil when it fails).
func (c *Cloud) startLocked(k call, req createReq) (*record, *operation, error) {
	if c.asyncCreates == 0 {
		rec, err := c.insertLocked(k.owner(), req, time.Time{})
		return rec, nil, err
	}
	now := c.now()
	o := &operation{account: k.owner(), kind: req.kind, startedAt: now, endsAt: now.Add(c.asyncCreates)}
	var rec *record
	if k.failOperation {
		c.stats.Faults++
	} else {
		var err error
		if rec, err = c.insertLocked(k.owner(), req, o.endsAt); err != nil {
			return nil, nil, err
		}
		o.resourceID = rec.id()
	}
	o.id = operationPrefix + c.newIDLocked(req.kind)
	c.ops[o.id] = o
	if req.token != "" {
		key := tokenKey{k.owner(), req.kind, req.token}
		if c.tokens[key] == nil { // a failing operation: insertLocked did not record the token
			c.tokens[key] = &tokenEntry{fingerprint: req.fingerprint}
		}
		c.tokens[key].op = o.id
	}
	return rec, o, nil
}

// scheduleLocked sets when rec exists for the API (readyAt; now or earlier: at once) and when Find
// lists it (WithSearchLag later). It reads the clock only when creates are asynchronous or the
// search lags.
func (c *Cloud) scheduleLocked(rec *record, readyAt time.Time) {
	if c.asyncCreates == 0 && c.searchLag == 0 {
		return
	}
	now := c.now()
	if !readyAt.After(now) {
		readyAt = now
	}
	rec.readyAt, rec.listedAt = readyAt, readyAt.Add(c.searchLag)
}

// existsLocked reports whether rec exists for the API: its create operation, if any, is done.
func (c *Cloud) existsLocked(rec *record) bool {
	return rec.readyAt.IsZero() || !c.now().Before(rec.readyAt)
}
