package ensure

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// Tags that Exists puts on every resource it creates, and searches for when it adopts one.
const (
	// TagOwnershipKey holds the ownership key of the infra object that owns the resource; it is the name
	// of the label that holds the key on the infra object.
	TagOwnershipKey = scope.OwnershipKeyLabel
	// TagResourceKey holds the resource key, e.g. "network" or "vm".
	TagResourceKey = "capkit.io/resource"
)

// Resource is the lifecycle of one kind of cloud resource, written by the provider against its cloud SDK.
// S is the provider's description of the resource it wants (its parameters), O what the cloud reports of a
// resource that exists (its observation, usually a pointer to the SDK's type). Every method but Validate and
// ID calls the cloud; Exists and Deleted decide which to call, and read each resource at most once
// per call: a service uses the observation Exists returns instead of reading the resource again.
type Resource[S, O any] interface {
	// Validate checks spec before any cloud call that sends it; an error makes Exists return a step.TerminalError
	// with conditions.ReasonInvalidParameters, so that bad parameters never reach the cloud API.
	Validate(spec S) error
	// Get returns the resource with cloud ID id, and whether it exists; a resource that is gone is not an
	// error. A resource being deleted still exists (report it with PendingReporter).
	Get(ctx context.Context, id string) (obs O, found bool, err error)
	// FindByTags returns a resource that carries all tags (the oldest, when there are several), and whether
	// there is one.
	FindByTags(ctx context.Context, tags map[string]string) (obs O, found bool, err error)
	// Create creates the resource with tags and returns it. token is an idempotency token: a cloud that
	// supports one must return the resource it created before for the same token instead of creating a
	// second one; Exists passes the same token on every attempt for the same owner and key. A create the cloud
	// runs as an operation returns Accepted(handle) (the Resource is then an OperationPoller). Return
	// step.Throttled or step.Terminal only when the cloud made nothing: Exists retries a throttled Create and
	// forgets its note; make every further call of a composite Create through Call, whose throttling is not taken
	// for a refused create.
	Create(ctx context.Context, spec S, token string, tags map[string]string) (O, error)
	// Delete deletes the resource with cloud ID id; deleting a resource that does not exist is not an error.
	Delete(ctx context.Context, id string) error
	// ID returns the cloud ID of an observed resource; it calls nothing.
	ID(obs O) string
}

// Updater is implemented by a Resource whose resources can be changed in place (load-balancer listeners,
// security-group rules, tags). Exists compares every resource it finds or adopts with the spec and updates
// it when it drifted.
//
// A difference that cannot be updated in place (replace true) is reported, never repaired: Exists returns a
// step result with conditions.ReasonNeedsReplacement, emits a Warning event and calls nothing. It is not a terminal
// error, because the resource still exists and serves, the difference may go away (the spec is edited back,
// or the out-of-band change is undone) and the next reconcile notices; and replacing a resource is a
// decision for a higher level (a Cluster API rollout, a MachineHealthCheck, a person), never for a
// reconcile that would delete what it cannot update.
type Updater[S, O any] interface {
	// Diff returns the names of the fields of obs that differ from spec, empty when obs is up to date, and
	// whether any of them cannot be changed in place. It calls nothing; names only, never values (they may
	// be secret).
	Diff(spec S, obs O) (fields []string, replace bool)
	// Update changes the resource id (observed as obs) to match spec and returns it as the cloud reports it.
	Update(ctx context.Context, id string, spec S, obs O) (O, error)
}

// PendingReporter is implemented by a Resource whose resources pass through transitional states (creating,
// updating, deleting) that a reconcile must wait out. Exists and Deleted then return a step result that
// is not done and requeues after the poll interval (the reconciler's reconcile.WithPollInterval, or WithPollInterval),
// instead of code in every service.
type PendingReporter[O any] interface {
	// Pending reports whether obs is in a transitional state, with the CamelCase reason of the step
	// condition meanwhile (conditions.ReasonResourcePending when empty) and a message without secrets.
	Pending(obs O) (reason, message string, pending bool)
}

// Action is what Exists did.
type Action string

// Actions of Exists.
const (
	// ActionFound means the tracked ID still exists in the cloud: nothing was called but Get.
	ActionFound Action = "Found"
	// ActionAdopted means the resource was found by its ownership tags and its ID recorded.
	ActionAdopted Action = "Adopted"
	// ActionCreated means the resource was created and its ID recorded.
	ActionCreated Action = "Created"
	// ActionUpdated means the resource was found or adopted, had drifted, and was updated in place.
	ActionUpdated Action = "Updated"
	// actionDeleted means Deleted deleted the resource (only in capkit's metrics).
	actionDeleted Action = "Deleted"
)

// Result is the outcome of Exists: the resource as observed in this reconcile and what the step
// reports about it.
type Result[O any] struct {
	// ID is the cloud ID of the resource, recorded in the tracker and persisted; use it for further calls
	// (e.g. to build the providerID).
	ID string
	// Observed is the resource as the cloud last reported it (by Get, FindByTags, Create or Update): read
	// its state, addresses and so on from here rather than reading it again.
	Observed O
	// Action says whether the resource was found, adopted, created or updated.
	Action Action
	// Drift names the fields that differed from the spec: updated in place (ActionUpdated) or, with
	// conditions.ReasonNeedsReplacement, left as they are.
	Drift []string
	// Result is what the step reports: Done when the resource is ready; otherwise not done, with the reason
	// (conditions.ReasonResourcePending or the PendingReporter's, conditions.ReasonDriftCorrected, conditions.ReasonNeedsReplacement), a
	// message and the poll interval. A service returns it as it is when it is not Done.
	Result step.Result
}

// Spec is the desired state of a resource for Ensure: given at once (Given) or computed only when a create or
// an update needs it (Lazy), so that a steady-state reconcile computes nothing it does not use, e.g. reads
// no bootstrap data Secret for a machine whose instance exists.
type Spec[S any] struct {
	value S
	fn    func(ctx context.Context) (S, error)
}

// Given is a spec at hand; Exists validates it before any cloud call.
func Given[S any](spec S) Spec[S] { return Spec[S]{value: spec} }

// Lazy is a spec computed by fn at most once per Exists, when a create or an update (or, for an Updater, the
// comparison with the observed resource) needs it; Exists validates it before any call that sends it. An
// error from fn is returned as it is (a step.TerminalError stays terminal).
func Lazy[S any](fn func(ctx context.Context) (S, error)) Spec[S] { return Spec[S]{fn: fn} }

// Option configures Exists and Deleted.
type Option func(*options)

type options struct {
	tags       map[string]string
	poll       time.Duration
	createOnce bool
	now        func() time.Time
}

// CreateOnce makes Exists create the resource at most once per owner: when the ID it recorded names a resource
// that is gone, Exists neither adopts nor creates another one but returns a terminal error with
// conditions.ReasonResourceDeleted. Use it for a machine's server (a VM, a Pod): Cluster API treats machines as
// immutable, so a machine whose server vanished must be replaced (a MachineHealthCheck remediates it), not
// booted a second time with bootstrap data that was meant to be used once.
func CreateOnce() Option { return func(o *options) { o.createOnce = true } }

// WithTags adds tags to the created resource (e.g. the cluster name); the ownership tags always win.
func WithTags(tags map[string]string) Option {
	return func(o *options) { maps.Copy(o.tags, tags) }
}

// WithPollInterval sets how long a step waits before looking again at a pending, updated or deleting
// resource, for a resource that needs its own. By default Exists and Deleted use the poll interval of
// the reconcile (Env.PollInterval: the reconciler's reconcile.WithPollInterval), and step.DefaultPollInterval outside a
// reconcile.
func WithPollInterval(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.poll = d
		}
	}
}

func newOptions(ctx context.Context, opts []Option) options {
	o := options{tags: map[string]string{}, poll: step.EnvFrom(ctx).PollInterval(), now: time.Now}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// OwnershipTags returns the tags that mark a resource as key of the owner with ownershipKey.
func OwnershipTags(ownershipKey, key string) map[string]string {
	return map[string]string{TagOwnershipKey: ownershipKey, TagResourceKey: key}
}

// IdempotencyToken returns the token Exists passes to Create for a resource key of an owner: the first 32
// hex digits of SHA-256 over both, so the same resource always gets the same token, across crashes,
// controller restarts and clusterctl move.
func IdempotencyToken(ownershipKey, key string) string {
	sum := sha256.Sum256([]byte(ownershipKey + "\x00" + key))
	return hex.EncodeToString(sum[:16])
}

// run is one Ensure: its inputs, and the spec once computed.
type run[S, O any] struct {
	key string
	r   *metered[S, O] // every cloud call goes through it; r.Resource is the provider's
	t   scope.ResourceTracker
	g   Guarantees
	n   notes

	spec     Spec[S]
	computed bool
	opts     options
	// adoptedBy says how an adopted resource was found, for the event.
	adoptedBy string
	// retry is set when an earlier create's outcome is unknown.
	retry bool
}

// desired returns the spec, computing and validating a lazy one on first use.
func (c *run[S, O]) desired(ctx context.Context) (S, error) {
	if !c.computed {
		if c.spec.fn != nil {
			v, err := c.spec.fn(ctx)
			if err != nil {
				return v, fmt.Errorf("cannot compute the spec of resource %q: %w", c.key, err)
			}
			c.spec.value = v
		}
		if err := c.r.Validate(c.spec.value); err != nil {
			return c.spec.value, step.Terminal(conditions.ReasonInvalidParameters, fmt.Errorf("cannot ensure resource %q: invalid parameters: %w", c.key, err))
		}
		c.computed = true
	}
	return c.spec.value, nil
}

// Exists makes sure the cloud resource key of the tracker's owner exists and matches spec, without ever
// creating two:
//
//  1. a Given spec is validated (no cloud call on bad parameters: step.TerminalError, conditions.ReasonInvalidParameters);
//  2. the tracked ID is read (Get); when it exists, it is the resource (ActionFound);
//  3. otherwise a resource carrying the ownership tags is adopted (ActionAdopted);
//  4. otherwise the spec is computed (Lazy) and validated, and the resource created with the ownership tags
//     and the idempotency token (ActionCreated);
//  5. a resource that is pending (PendingReporter) is waited for; a found or adopted one of an Updater is
//     compared with the spec and updated in place when it drifted (ActionUpdated), or reported when it
//     cannot be (conditions.ReasonNeedsReplacement).
//
// After 3 and 4 the ID is recorded and persisted at once with PatchNow. When Create fails, or the process
// dies before the ID is persisted, the next Exists adopts the resource by its tags, or calls Create with the
// same token, which an idempotent cloud answers with the same resource.
//
// What the cloud promises (Guarantees, declared by a Declarer; nothing by default) decides how careful step 4
// is. Unless the cloud's tag search is immediate, Exists first notes the create on the tracker
// (scope.PendingTracker: an annotation on the infra object) and persists the note; while the note is younger than
// the declared search lag (DefaultSearchLag when undeclared), a cloud whose creates are not idempotent is not
// asked to create again: the step waits (conditions.ReasonResourcePending) until the search lists the first
// resource or the lag has passed. A Create that returns Accepted(op) runs as a cloud operation: Exists
// checkpoints its handle in the note and returns at once, without holding the worker; later reconciles poll it
// (OperationPoller) at the poll interval, record the resource it made, and create again when it failed
// (ErrOperationFailed). A create that an idempotent cloud answers for an earlier attempt whose outcome was not
// known is reported as adopted. Each step reads the resource once:
// a steady-state Exists of a Resource that is not an Updater makes exactly one cloud call (Get) and computes
// no Lazy spec. Cloud errors are returned as they are: retried with backoff, unless the Resource made them
// terminal. Adoptions, updates and differences that need a replacement are announced as events (step.Eventf); a
// routine create is not (its ID is in status, and an event per resource is one more API request per machine
// at scale). Waits use the poll interval of the reconcile (Env.PollInterval) unless WithPollInterval is given.
func Exists[S, O any](ctx context.Context, t scope.ResourceTracker, key string, r Resource[S, O], spec Spec[S], opts ...Option) (Result[O], error) {
	var out Result[O]
	if t == nil || r == nil {
		return out, fmt.Errorf("cannot ensure resource %q: tracker and resource must not be nil", key)
	}
	if err := scope.ValidateResourceKey(key); err != nil {
		return out, step.Terminal(conditions.ReasonInvalidParameters, fmt.Errorf("cannot ensure resource: %w", err))
	}
	o := newOptions(ctx, opts)
	m := meter(r, key)
	c := &run[S, O]{key: key, r: m, t: t, g: guaranteesOf(r), n: newNotes(t, key, o.now), spec: spec, opts: o}
	if spec.fn == nil {
		if _, err := c.desired(ctx); err != nil {
			return out, err
		}
	}
	ownershipKey, err := t.OwnershipKey()
	if err != nil {
		return out, fmt.Errorf("cannot ensure resource %q: %w", key, err)
	}
	if id, ok := t.ResourceID(key); ok {
		obs, found, err := m.Get(ctx, id)
		if err != nil {
			return out, fmt.Errorf("cannot get resource %q (id %q): %w", key, id, err)
		}
		if found {
			// A note left by a create whose ID was recorded but whose note was not cleared: the next write clears it.
			if err := c.n.clear(); err != nil {
				return out, err
			}
			return c.record(ctx)(c.settle(ctx, Result[O]{ID: id, Observed: obs, Action: ActionFound}))
		}
		if c.opts.createOnce {
			return out, step.Terminal(conditions.ReasonResourceDeleted,
				fmt.Errorf("resource %q (id %q) was deleted outside the controller and is not created again", key, id))
		}
	}
	out, err = c.inflightOrAdoptOrCreate(ctx, ownershipKey)
	var w *waitError
	if errors.As(err, &w) { // an operation runs, or the search may still miss an earlier create
		return Result[O]{Result: w.result}, nil
	}
	if err != nil {
		return out, err
	}
	if err := c.checkpoint(ctx, out.ID); err != nil {
		return out, err
	}
	if out.Action == ActionAdopted {
		// A create is routine and its ID is in status; an adoption is a recovery (a lost status, a crash
		// before the checkpoint, a create answered through its token) that a person may want to see.
		step.Eventf(ctx, step.EventNormal, conditions.ReasonResourceAdopted, "adopted resource %q (id %q) %s", key, out.ID, c.adoptedBy)
	}
	return c.record(ctx)(c.settle(ctx, out))
}

// checkpoint records id, forgets the key's in-flight note and persists both at once.
func (c *run[S, O]) checkpoint(ctx context.Context, id string) error {
	if err := c.t.SetResourceID(c.key, id); err != nil {
		return fmt.Errorf("cannot record resource %q (id %q): %w", c.key, id, err)
	}
	if err := c.n.clear(); err != nil {
		return err
	}
	if err := c.t.PatchNow(ctx); err != nil {
		return fmt.Errorf("cannot persist resource %q (id %q): %w", c.key, id, err)
	}
	return nil
}

// record returns a function that counts what Exists did in capkit's metrics.
func (c *run[S, O]) record(ctx context.Context) func(Result[O], error) (Result[O], error) {
	return func(out Result[O], err error) (Result[O], error) {
		if err == nil && out.Action != "" {
			c.r.action(ctx, out.Action)
		}
		return out, err
	}
}

// inflightOrAdoptOrCreate finishes a create in flight (an operation, or a create whose outcome is not known yet),
// or finds the resource by its ownership tags, or creates it. A result without an ID is a step that waits.
func (c *run[S, O]) inflightOrAdoptOrCreate(ctx context.Context, ownershipKey string) (Result[O], error) {
	var out Result[O]
	note, noted := c.n.get()
	note = pollable(c.r.Resource, note)
	if noted {
		var err error
		if note, err = findLost(ctx, c.r, c.n, c.key, IdempotencyToken(ownershipKey, c.key), note); err != nil {
			return out, err
		}
	}
	if noted && note.op != "" {
		out, done, err := c.pollCreate(ctx, note)
		if err != nil || done {
			return out, err
		}
		noted = false // the operation failed: nothing was created, create again
	}
	obs, found, err := c.r.FindByTags(ctx, OwnershipTags(ownershipKey, c.key))
	if err != nil {
		return out, fmt.Errorf("cannot find resource %q by tags: %w", c.key, err)
	}
	if found {
		c.adoptedBy = "by its ownership tags"
		return c.observed(obs, ActionAdopted)
	}
	if noted && !c.g.idempotent() {
		if left := c.n.remaining(note, c.g.lag()); left > 0 {
			return out, c.waitForSearch(note, left)
		}
	}
	return c.create(ctx, ownershipKey, noted)
}

// waitForSearch is the wait before a second create on a cloud without idempotent creates, while the search may
// still miss the first.
func (c *run[S, O]) waitForSearch(note inflight, left time.Duration) error {
	return &waitError{step.Result{
		Reason: conditions.ReasonResourcePending,
		Message: fmt.Sprintf("resource %q: a create started at %s may not be listed by the cloud's search yet; creating again only after %s",
			c.key, note.since.UTC().Format(time.RFC3339), note.since.Add(c.g.lag()).UTC().Format(time.RFC3339)),
		RequeueAfter: waitFor(c.opts.poll, left),
	}}
}

// create creates the resource. On a cloud whose search may lag it first notes the create and persists the note,
// so that a crash, a lost response or a delete meanwhile cannot lose what the create makes. retry says an earlier
// create's outcome is unknown: a resource an idempotent cloud returns for it is reported as adopted.
func (c *run[S, O]) create(ctx context.Context, ownershipKey string, retry bool) (Result[O], error) {
	var out Result[O]
	c.retry = retry
	spec, err := c.desired(ctx)
	if err != nil {
		return out, err
	}
	if !c.g.ImmediateSearch && c.n.pt != nil {
		if err := c.n.set(inflight{since: c.opts.now()}); err != nil {
			return out, err
		}
		if err := c.t.PatchNow(ctx); err != nil {
			return out, fmt.Errorf("cannot persist the note of the create of resource %q: %w", c.key, err)
		}
	}
	tags := maps.Clone(c.opts.tags)
	maps.Copy(tags, OwnershipTags(ownershipKey, c.key))
	obs, err := c.r.Create(ctx, spec, IdempotencyToken(ownershipKey, c.key), tags)
	var accepted *AcceptedError
	switch {
	case errors.As(err, &accepted):
		return out, c.accepted(ctx, accepted.Operation)
	case err != nil && refused(err):
		// The cloud refused the create (invalid, over quota, throttled): nothing was made, nothing to wait for.
		if cerr := c.n.clear(); cerr != nil {
			return out, cerr
		}
		return out, fmt.Errorf("cannot create resource %q: %w", c.key, err)
	case err != nil:
		return out, fmt.Errorf("cannot create resource %q: %w", c.key, err)
	}
	if c.retry && c.g.idempotent() {
		c.adoptedBy = "through its idempotency (an earlier create's outcome was unknown)"
		return c.observed(obs, ActionAdopted)
	}
	return c.observed(obs, ActionCreated)
}

// accepted checkpoints the operation of an accepted create and returns the wait for it.
func (c *run[S, O]) accepted(ctx context.Context, op string) error {
	if err := validOperation(op); err != nil {
		return fmt.Errorf("cannot track the create of resource %q: %w", c.key, err)
	}
	if c.n.pt == nil {
		return fmt.Errorf("cannot track operation %q of resource %q: the tracker keeps no notes (it is not a scope.PendingTracker)", op, c.key)
	}
	note := inflight{since: c.opts.now(), op: op, recovered: c.retry && c.g.idempotent()}
	if prev, ok := c.n.get(); ok && prev.op == "" {
		note.since = prev.since // the search lag counts from the create call
	}
	if err := c.n.set(note); err != nil {
		return err
	}
	if err := c.t.PatchNow(ctx); err != nil {
		return fmt.Errorf("cannot persist operation %q of resource %q: %w", op, c.key, err)
	}
	return &waitError{c.operationWait(op, note.since)}
}

// minOperationPoll is the shortest wait before an operation is read again (operationPoll).
const minOperationPoll = time.Second

// operationPoll is how long to wait before reading again an operation that has run for age: as long as it has run,
// at least minOperationPoll and at most poll. An operation that ends at once is seen a second later, not a poll
// interval later; one that runs for minutes is read at the poll interval, after a few reads whose waits double (1 s,
// 1 s, 2 s, 4 s, 8 s with a poll interval of 10 s): the cloud's own waiters poll so.
func operationPoll(poll, age time.Duration) time.Duration {
	return min(poll, max(minOperationPoll, age))
}

// operationWait is the step result while the create operation op, started at since, runs.
func (c *run[S, O]) operationWait(op string, since time.Time) step.Result {
	return step.Result{Reason: conditions.ReasonResourcePending,
		Message:      fmt.Sprintf("resource %q is being created (operation %q)", c.key, op),
		RequeueAfter: operationPoll(c.opts.poll, c.opts.now().Sub(since))}
}

// pollCreate reads the create operation of note. done is true when the step has its outcome: the resource the
// operation made, a wait while it runs, or an error; false when the operation failed and a create is due.
func (c *run[S, O]) pollCreate(ctx context.Context, note inflight) (Result[O], bool, error) {
	obs, done, err := c.r.pollOperation(ctx, note.op)
	switch {
	case errors.Is(err, ErrOperationFailed):
		step.Eventf(ctx, step.EventWarning, conditions.ReasonResourcePending, "the create of resource %q (operation %q) failed; creating again", c.key, note.op)
		return Result[O]{}, false, c.n.clear()
	case err != nil:
		return Result[O]{}, true, fmt.Errorf("cannot read operation %q of resource %q: %w", note.op, c.key, err)
	case !done:
		return Result[O]{}, true, &waitError{c.operationWait(note.op, note.since)}
	}
	if note.recovered {
		c.adoptedBy = "through its idempotency (an earlier create's outcome was unknown)"
		out, err := c.observed(obs, ActionAdopted)
		return out, true, err
	}
	out, err := c.observed(obs, ActionCreated)
	return out, true, err
}

// observed is the result for a resource the cloud returned, which must have an ID.
func (c *run[S, O]) observed(obs O, action Action) (Result[O], error) {
	id := c.r.ID(obs)
	if id == "" {
		return Result[O]{}, fmt.Errorf("cannot ensure resource %q: the cloud returned a resource without an id (%s)", c.key, strings.ToLower(string(action)))
	}
	return Result[O]{ID: id, Observed: obs, Action: action}, nil
}

// settle waits for a pending resource and brings a drifted one up to date; it sets out.Result.
func (c *run[S, O]) settle(ctx context.Context, out Result[O]) (Result[O], error) {
	if w, pending := pendingResult(c.r.Resource, c.key, out.ID, out.Observed, c.opts.poll); pending {
		out.Result = w
		return out, nil
	}
	u, ok := c.r.Resource.(Updater[S, O])
	if !ok || out.Action == ActionCreated {
		out.Result = step.Result{Done: true}
		return out, nil
	}
	spec, err := c.desired(ctx)
	if err != nil {
		return out, err
	}
	fields, replace := u.Diff(spec, out.Observed)
	switch {
	case len(fields) == 0:
		out.Result = step.Result{Done: true}
		return out, nil
	case replace:
		out.Drift = fields
		msg := fmt.Sprintf("resource %q (id %q) differs from its spec in %s, which cannot be changed in place", c.key, out.ID, strings.Join(fields, ", "))
		step.Eventf(ctx, step.EventWarning, conditions.ReasonNeedsReplacement, "%s", msg)
		out.Result = step.Result{Reason: conditions.ReasonNeedsReplacement, Message: msg, RequeueAfter: c.opts.poll}
		return out, nil
	}
	obs, err := c.r.update(ctx, u, out.ID, spec, out.Observed)
	var accepted *AcceptedError
	if errors.As(err, &accepted) {
		// The cloud runs the update as an operation: wait for it as for a pending resource.
		out.Action, out.Drift = ActionUpdated, fields
		out.Result = step.Result{Reason: conditions.ReasonResourcePending, RequeueAfter: c.opts.poll,
			Message: fmt.Sprintf("resource %q (id %q) is being updated in %s (operation %q)", c.key, out.ID, strings.Join(fields, ", "), accepted.Operation)}
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("cannot update resource %q (id %q) in %s: %w", c.key, out.ID, strings.Join(fields, ", "), err)
	}
	out.Observed, out.Action, out.Drift = obs, ActionUpdated, fields
	msg := fmt.Sprintf("resource %q (id %q) differed from its spec in %s; updated in place", c.key, out.ID, strings.Join(fields, ", "))
	step.Eventf(ctx, step.EventNormal, conditions.ReasonDriftCorrected, "%s", msg)
	out.Result = step.Result{Reason: conditions.ReasonDriftCorrected, Message: msg, RequeueAfter: c.opts.poll}
	return out, nil
}

// pendingResult returns the step result that waits for a resource in a transitional state.
func pendingResult[S, O any](r Resource[S, O], key, id string, obs O, poll time.Duration) (step.Result, bool) {
	p, ok := r.(PendingReporter[O])
	if !ok {
		return step.Result{}, false
	}
	reason, msg, pending := p.Pending(obs)
	if !pending {
		return step.Result{}, false
	}
	if reason == "" {
		reason = conditions.ReasonResourcePending
	}
	if msg == "" {
		msg = "in a transitional state"
	}
	return step.Result{Reason: reason, Message: fmt.Sprintf("resource %q (id %q): %s", key, id, msg), RequeueAfter: poll}, true
}

// MaxTaggedDeletes bounds how many resources carrying the ownership tags Deleted deletes in one call,
// besides the tracked one. A cloud without idempotency tokens can hold duplicates (Create may have run more
// than once); more than this many are deleted over several reconciles, each reporting not done.
const MaxTaggedDeletes = 10

// Deleted deletes the cloud resource key of the tracker's owner: the tracked ID and every resource
// still carrying its ownership tags (one created by an attempt whose ID was never recorded, or duplicates of
// a cloud without idempotency tokens). It searches by tags again after each delete, and returns a Done result
// only when a search finds nothing; then it forgets the ID (persisted by the next PatchNow or Close). While a
// resource is still there after its delete (cloud deletes are often asynchronous) it returns a result that
// is not done, with conditions.ReasonDeleting (or the PendingReporter's reason) and the poll interval; so it does after
// MaxTaggedDeletes deletes in one call.
//
// Deleted never concludes "gone" while a create may still be in flight: a create operation that Exists
// checkpointed is waited for and what it made deleted; and while a noted create (see Exists) is younger than the
// cloud's search lag, a search that finds nothing is not believed, and the step waits (conditions.ReasonDeleting)
// until the lag has passed. Done forgets the ID and the note.
func Deleted[S, O any](ctx context.Context, t scope.ResourceTracker, key string, r Resource[S, O], opts ...Option) (step.Result, error) {
	if t == nil || r == nil {
		return step.Result{}, fmt.Errorf("cannot delete resource %q: tracker and resource must not be nil", key)
	}
	o := newOptions(ctx, opts)
	m := meter(r, key)
	n := newNotes(t, key, o.now)
	deleted := map[string]bool{} // deleted in this call
	var wait *step.Result        // why the step waits, for the first resource still there
	if tracked, isTracked := t.ResourceID(key); isTracked {
		w, gone, err := deleteIfExists(ctx, m, key, tracked, o.poll)
		if err != nil {
			return step.Result{}, err
		}
		if !gone {
			wait = &w
		}
		deleted[tracked] = true
	}
	note, noted := n.get()
	note = pollable(r, note)
	if ownershipKey, err := t.OwnershipKey(); noted && err == nil {
		if note, err = findLost(ctx, m, n, key, IdempotencyToken(ownershipKey, key), note); err != nil {
			return step.Result{}, err
		}
	}
	if noted && note.op != "" {
		w, ended, err := deleteOperation(ctx, m, key, note.op, deleted, o.poll)
		if err != nil {
			return step.Result{}, err
		}
		if w != nil && wait == nil {
			wait = w
		}
		if ended {
			noted = false // what the operation made is deleted (or it made nothing): no lag to wait out
		}
	}
	ownershipKey, err := t.OwnershipKey()
	switch {
	case errors.Is(err, scope.ErrOwnershipKeyNotPersisted):
		// Nothing was ever created with this key: Exists refuses to run before it is persisted.
	case err != nil:
		return step.Result{}, fmt.Errorf("cannot delete resource %q: %w", key, err)
	default:
		w, done, err := deleteTagged(ctx, m, key, OwnershipTags(ownershipKey, key), deleted, o.poll)
		if err != nil {
			return step.Result{}, err
		}
		if !done && wait == nil {
			wait = &w
		}
	}
	if wait == nil && noted {
		// A create whose outcome is not known started less than the search lag ago: the search may not list
		// its resource yet, so "nothing found" does not mean "gone".
		lag := guaranteesOf(r).lag()
		if left := n.remaining(note, lag); left > 0 {
			wait = &step.Result{Reason: conditions.ReasonDeleting, RequeueAfter: waitFor(o.poll, left),
				Message: fmt.Sprintf("resource %q: a create started at %s may not be listed by the cloud's search yet; looking again until %s",
					key, note.since.UTC().Format(time.RFC3339), note.since.Add(lag).UTC().Format(time.RFC3339))}
		}
	}
	if wait != nil {
		return *wait, nil
	}
	if err := n.clear(); err != nil {
		return step.Result{}, err
	}
	if err := t.DeleteResourceID(key); err != nil {
		return step.Result{}, err
	}
	return step.Result{Done: true}, nil
}

// deleteOperation deletes what the create operation op made. ended is true when nothing of it can appear any more:
// the operation failed, or it ended and its resource is deleted; otherwise w says why the step waits.
func deleteOperation[S, O any](ctx context.Context, m *metered[S, O], key, op string, deleted map[string]bool, poll time.Duration) (w *step.Result, ended bool, err error) {
	obs, done, err := m.pollOperation(ctx, op)
	switch {
	case errors.Is(err, ErrOperationFailed):
		return nil, true, nil
	case err != nil:
		return nil, false, fmt.Errorf("cannot read operation %q of resource %q: %w", op, key, err)
	case !done:
		return &step.Result{Reason: conditions.ReasonDeleting, RequeueAfter: poll,
			Message: fmt.Sprintf("resource %q is being created (operation %q); it is deleted once the operation ends", key, op)}, false, nil
	}
	id := m.ID(obs)
	if id == "" || deleted[id] {
		return nil, id != "", nil
	}
	res, gone, err := deleteIfExists(ctx, m, key, id, poll)
	if err != nil {
		return nil, false, err
	}
	deleted[id] = true
	if !gone {
		return &res, true, nil
	}
	return nil, true, nil
}

// deleteTagged deletes the resources that carry tags, one search at a time, until a search finds none (done)
// or one is still there after its delete, or MaxTaggedDeletes were deleted; then the result says why the
// step waits. deleted holds the IDs deleted so far in this call.
func deleteTagged[S, O any](ctx context.Context, m *metered[S, O], key string, tags map[string]string, deleted map[string]bool, poll time.Duration) (step.Result, bool, error) {
	for n := 0; ; n++ {
		obs, found, err := m.FindByTags(ctx, tags)
		if err != nil {
			return step.Result{}, false, fmt.Errorf("cannot find resource %q by tags: %w", key, err)
		}
		if !found {
			return step.Result{}, true, nil
		}
		id := m.ID(obs)
		switch {
		case id == "":
			return step.Result{}, false, fmt.Errorf("cannot delete resource %q: the cloud returned a resource without an id (find by tags)", key)
		case deleted[id]:
			// Deleted in this call and still listed: the cloud's search lags behind, or the delete is slow.
			return step.Result{Reason: conditions.ReasonDeleting, Message: fmt.Sprintf("resource %q (id %q) is still listed after its delete", key, id), RequeueAfter: poll}, false, nil
		case n >= MaxTaggedDeletes:
			return step.Result{Reason: conditions.ReasonDeleting, Message: fmt.Sprintf("more than %d resources %q carry the ownership tags; deleting the rest at the next reconcile", MaxTaggedDeletes, key), RequeueAfter: poll}, false, nil
		}
		w, gone, err := deleteIfExists(ctx, m, key, id, poll)
		if err != nil || !gone {
			return w, false, err
		}
		deleted[id] = true
	}
}

// deleteIfExists deletes id unless it is gone and reports whether it is gone afterwards; when it is not,
// the result says why the step waits.
func deleteIfExists[S, O any](ctx context.Context, r *metered[S, O], key, id string, poll time.Duration) (step.Result, bool, error) {
	_, found, err := r.Get(ctx, id)
	if err != nil {
		return step.Result{}, false, fmt.Errorf("cannot get resource %q (id %q): %w", key, id, err)
	}
	if !found {
		return step.Result{}, true, nil
	}
	var accepted *AcceptedError
	if err := r.Delete(ctx, id); err != nil && !errors.As(err, &accepted) { // an accepted delete is waited for below
		return step.Result{}, false, fmt.Errorf("cannot delete resource %q (id %q): %w", key, id, err)
	}
	r.action(ctx, actionDeleted)
	obs, found, err := r.Get(ctx, id)
	if err != nil {
		return step.Result{}, false, fmt.Errorf("cannot get resource %q (id %q): %w", key, id, err)
	}
	if !found {
		return step.Result{}, true, nil
	}
	if w, pending := pendingResult(r.Resource, key, id, obs, poll); pending {
		if w.Reason == conditions.ReasonResourcePending {
			w.Reason = conditions.ReasonDeleting
		}
		return w, false, nil
	}
	return step.Result{Reason: conditions.ReasonDeleting, Message: fmt.Sprintf("resource %q (id %q) still exists after its delete", key, id), RequeueAfter: poll}, false, nil
}
