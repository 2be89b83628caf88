package ensure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// Idempotency is what a cloud does when Create is called again for a resource it already created (a retry after
// a lost response, a crash before the ID was recorded).
type Idempotency int

const (
	// IdempotencyUnknown is a Resource that declares nothing: Exists treats it as NotIdempotent.
	IdempotencyUnknown Idempotency = iota
	// IdempotentByToken is a cloud that answers a Create with an idempotency token it has seen with the resource (or
	// the operation) of the first Create, instead of creating a second one.
	IdempotentByToken
	// IdempotentByName is a cloud where the resource's name is unique (a VM name in a vSphere folder, a bucket name):
	// Create derives the name from the spec or the token, and a second Create of that name returns the first
	// resource (the Resource maps the cloud's "already exists" to it), never a second one.
	IdempotentByName
	// NotIdempotent is a cloud where every Create makes a new resource: only the tag search finds the first one.
	NotIdempotent
)

// String returns the declaration's name.
func (i Idempotency) String() string {
	switch i {
	case IdempotentByToken:
		return "IdempotentByToken"
	case IdempotentByName:
		return "IdempotentByName"
	case NotIdempotent:
		return "NotIdempotent"
	}
	return "IdempotencyUnknown"
}

// DefaultSearchLag is how long after a create Exists and Deleted keep looking for its resource by tags when the
// Resource does not declare its cloud's search lag (Guarantees.SearchLag) nor an immediate search.
const DefaultSearchLag = time.Minute

// Guarantees is what a cloud promises about creates and searches; a Resource declares them (Declarer) and Exists
// and Deleted rely on exactly what is declared. The zero value promises nothing and gets the careful behaviour:
// a create is noted before it is called; a second create waits until the search would have listed the first
// (DefaultSearchLag); a delete does not conclude "gone" before that either.
type Guarantees struct {
	// Idempotency says whether a repeated Create makes a second resource.
	Idempotency Idempotency
	// ImmediateSearch is a cloud whose FindByTags lists a resource as soon as the Create that made it returns
	// (operations included: the resource is listed while it is being created). Exists then writes no note before
	// a create, and no wait is needed.
	ImmediateSearch bool
	// SearchLag is the longest time from the start of a Create call until FindByTags lists its resource,
	// asynchronous operations included; DefaultSearchLag when zero. Ignored with ImmediateSearch.
	SearchLag time.Duration
}

// idempotent reports whether a repeated Create returns the first resource.
func (g Guarantees) idempotent() bool {
	return g.Idempotency == IdempotentByToken || g.Idempotency == IdempotentByName
}

// lag is how long a search may miss a resource after its create started.
func (g Guarantees) lag() time.Duration {
	switch {
	case g.ImmediateSearch:
		return 0
	case g.SearchLag > 0:
		return g.SearchLag
	}
	return DefaultSearchLag
}

// Declarer is implemented by a Resource that declares its cloud's Guarantees. A Resource that does not is
// treated as declaring the zero Guarantees.
type Declarer interface {
	Guarantees() Guarantees
}

func guaranteesOf[S, O any](r Resource[S, O]) Guarantees {
	if d, ok := r.(Declarer); ok {
		return d.Guarantees()
	}
	return Guarantees{}
}

// MaxOperationHandle bounds an operation handle in bytes: it is checkpointed on the infra object.
const MaxOperationHandle = 200

// AcceptedError is what Create returns when the cloud accepted the create and runs it as an operation: Exists
// checkpoints the handle, returns without waiting, and polls it (OperationPoller) on later reconciles.
type AcceptedError struct {
	// Operation is the cloud's handle of the operation, at most MaxOperationHandle printable ASCII bytes.
	Operation string
}

func (e *AcceptedError) Error() string {
	return fmt.Sprintf("accepted as operation %q", e.Operation)
}

// Accepted is the error Create returns for a create the cloud runs as the operation op, e.g.
// `return nil, ensure.Accepted(resp.OperationID)`. An Update or Delete may return it too: Exists and Deleted then
// wait for the resource as they do for a slow one (report it with PendingReporter meanwhile).
func Accepted(op string) error { return &AcceptedError{Operation: op} }

// ErrOperationFailed is wrapped by the error PollOperation returns for an operation that ended without making the
// resource: Exists forgets the operation and creates again.
var ErrOperationFailed = errors.New("the operation failed")

// OperationPoller is implemented by a Resource whose Create may return Accepted.
type OperationPoller[O any] interface {
	// PollOperation reads the operation op: done with the resource it made, not done yet, or an error wrapping
	// ErrOperationFailed when it failed (any other error is a failure to read it, retried).
	PollOperation(ctx context.Context, op string) (obs O, done bool, err error)
}

// OperationFinder is implemented by a Resource whose cloud can find a create operation by the idempotency token
// the create sent (vCenter: the task whose activation ID is the operation ID of the clone call). Exists and Deleted
// ask it for the operation of a noted create whose handle was lost (the manager stopped between the create call and
// the checkpoint of its handle), and then read the operation instead of waiting out the search lag: a create that
// failed is known at once. A finder that finds nothing changes nothing: the lag is waited out as before.
type OperationFinder interface {
	// FindOperation returns the handle of the create operation started with token at or after since, and whether
	// the cloud still knows one.
	FindOperation(ctx context.Context, token string, since time.Time) (op string, found bool, err error)
}

// finder returns r's OperationFinder, if r has one and can also read operations.
func finder[S, O any](r Resource[S, O]) (OperationFinder, bool) {
	f, ok := r.(OperationFinder)
	if fs, isFuncs := r.(interface{ finds() bool }); !ok || (isFuncs && !fs.finds()) {
		return nil, false
	}
	if _, polls := r.(OperationPoller[O]); !polls || pollable(r, inflight{op: "x"}).op == "" {
		return nil, false
	}
	return f, true
}

// findLost looks for the operation of note, a create without handle, through r's OperationFinder. It returns the
// note with the handle when the cloud has the operation, recovered (what it made is reported as adopted, as for an
// idempotent cloud's answer to a repeated create), recorded in the tracker's notes and persisted by the caller's
// next PatchNow or Close; else note unchanged.
func findLost[S, O any](ctx context.Context, m *metered[S, O], n notes, key, token string, note inflight) (inflight, error) {
	f, ok := finder(m.Resource)
	if !ok || note.op != "" {
		return note, nil
	}
	var op string
	var found bool
	err := m.call(ctx, opFind, func() (bool, error) {
		var err error
		op, found, err = f.FindOperation(ctx, token, note.since)
		return !found, err
	})
	if err != nil {
		return note, fmt.Errorf("cannot find the create operation of resource %q: %w", key, err)
	}
	if !found || validOperation(op) != nil {
		return note, nil
	}
	note.op, note.recovered = op, true // an earlier attempt's: what it made is adopted
	return note, n.set(note)
}

// Notes that Exists keeps with scope.PendingTracker while the outcome of a create is not known.
const (
	noteCreate    = "create"
	noteOperation = "operation"
	noteRecovered = "recovered-operation"
)

// inflight is a decoded note: a create started at since, through the operation op when op is set; recovered
// is an operation an idempotent cloud answered for an earlier create whose outcome was unknown.
type inflight struct {
	since     time.Time
	op        string
	recovered bool
}

func (n inflight) String() string {
	ts := n.since.UTC().Format(time.RFC3339Nano)
	switch {
	case n.op != "" && n.recovered:
		return noteRecovered + " " + ts + " " + n.op
	case n.op != "":
		return noteOperation + " " + ts + " " + n.op
	}
	return noteCreate + " " + ts
}

// parseNote decodes a note; ok is false for a note it cannot read (or one from the future), which get replaces by
// a create started now: it is waited for once, over the search lag, never trusted and never waited for forever.
func parseNote(note string, now time.Time) (n inflight, ok bool) {
	if len(note) > scope.MaxPendingNote { // bounded before it is parsed: an annotation anyone with edit rights can set
		return inflight{since: now}, false
	}
	kind, rest, _ := strings.Cut(note, " ")
	ts, op, _ := strings.Cut(rest, " ")
	since, err := time.Parse(time.RFC3339Nano, ts)
	switch {
	case err != nil || since.After(now):
		return inflight{since: now}, false
	case (kind == noteOperation || kind == noteRecovered) && validOperation(op) == nil:
		return inflight{since: since, op: op, recovered: kind == noteRecovered}, true
	case kind == noteCreate && op == "":
		return inflight{since: since}, true
	}
	return inflight{since: now}, false
}

// validOperation checks an operation handle before it is checkpointed.
func validOperation(op string) error {
	switch {
	case op == "":
		return errors.New("the operation handle is empty")
	case len(op) > MaxOperationHandle:
		return fmt.Errorf("the operation handle has %d bytes, more than %d", len(op), MaxOperationHandle)
	case !utf8.ValidString(op):
		return errors.New("the operation handle is not UTF-8")
	}
	for _, c := range op {
		if c <= ' ' || c > '~' {
			return fmt.Errorf("the operation handle has the character %q; only printable ASCII without spaces is kept", c)
		}
	}
	return nil
}

// notes reads and writes the in-flight note of one resource key; a tracker that is not a scope.PendingTracker
// keeps none.
type notes struct {
	pt  scope.PendingTracker
	key string
	now func() time.Time
}

func newNotes(t scope.ResourceTracker, key string, now func() time.Time) notes {
	pt, _ := t.(scope.PendingTracker)
	return notes{pt: pt, key: key, now: now}
}

// get returns the note of the key, and whether there is one.
func (n notes) get() (inflight, bool) {
	if n.pt == nil {
		return inflight{}, false
	}
	note, ok := n.pt.Pending(n.key)
	if !ok {
		return inflight{}, false
	}
	in, readable := parseNote(note, n.now())
	if !readable {
		// Rewritten as read, so that the lag counts from the first read: the next PatchNow or Close persists it.
		if err := n.set(in); err != nil {
			return in, true
		}
	}
	return in, true
}

// set records note (persisted by the caller's PatchNow).
func (n notes) set(note inflight) error {
	if n.pt == nil {
		return nil
	}
	if err := n.pt.SetPending(n.key, note.String()); err != nil {
		return fmt.Errorf("cannot note the create of resource %q: %w", n.key, err)
	}
	return nil
}

// clear forgets the note (persisted by the caller's next PatchNow, or Close).
func (n notes) clear() error {
	if n.pt == nil {
		return nil
	}
	if _, ok := n.pt.Pending(n.key); !ok {
		return nil
	}
	if err := n.pt.ClearPending(n.key); err != nil {
		return fmt.Errorf("cannot clear the note of resource %q: %w", n.key, err)
	}
	return nil
}

// remaining is how long a search may still miss the create of note, given lag.
func (n notes) remaining(note inflight, lag time.Duration) time.Duration {
	return note.since.Add(lag).Sub(n.now())
}

// WithClock makes Exists and Deleted read the time from now instead of time.Now: for tests that step through a
// cloud's search lag.
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}

// waitFor returns the poll interval, or less when the note's lag ends sooner.
func waitFor(poll, remaining time.Duration) time.Duration {
	if remaining > 0 && remaining < poll {
		return remaining
	}
	return poll
}

// waitError carries a step result that waits (an operation runs, a search may lag) out of the functions of Exists
// and Deleted; it never leaves the package.
type waitError struct{ result step.Result }

func (e *waitError) Error() string { return e.result.Message }

// pollable drops the operation of a note when r cannot read operations (a note left by another version of the
// Resource): the create is then waited for over the search lag like one whose outcome is unknown, never an error
// that would hold the object, or its finalizer, for ever.
func pollable[S, O any](r Resource[S, O], note inflight) inflight {
	p, ok := r.(OperationPoller[O])
	if f, isFuncs := p.(interface{ polls() bool }); !ok || (isFuncs && !f.polls()) {
		note.op, note.recovered = "", false
	}
	return note
}
