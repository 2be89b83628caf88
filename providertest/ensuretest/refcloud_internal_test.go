package ensuretest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
)

// refConfig switches on the behaviours of real clouds in the reference cloud of the package's tests.
type refConfig struct {
	async    bool // Create returns ensure.Accepted; the operation ends refOperationTime later
	lag      bool // the search lists a resource only refSearchLag after its create ended
	tokens   bool // a Create with a token it has seen answers with the first create's resource or operation
	throttle bool // the call after refBurst calls is refused with a Retry-After, and every call until then
}

// refBugs break the reference cloud's Resource in one way each, to prove that the scenarios catch the bug.
type refBugs struct {
	laterSearch   bool // the search lists a resource refSearchLag later than the Resource declares
	opaqueFailure bool // PollOperation reports a failed operation without ensure.ErrOperationFailed
	holdsWorker   bool // Create waits for its operation and returns the resource
	hidesCreating bool // the search never lists a resource that is being created
}

// String names the configuration, e.g. "async+lag".
func (c refConfig) String() string {
	var parts []string
	for _, p := range []struct {
		on   bool
		name string
	}{{c.async, "async"}, {c.lag, "lag"}, {c.tokens, "tokens"}, {c.throttle, "throttle"}} {
		if p.on {
			parts = append(parts, p.name)
		}
	}
	if len(parts) == 0 {
		return "plain"
	}
	return strings.Join(parts, "+")
}

// refConfigs returns every combination of the switches.
func refConfigs() []refConfig {
	out := make([]refConfig, 0, 16)
	for bits := range 16 {
		out = append(out, refConfig{async: bits&1 != 0, lag: bits&2 != 0, tokens: bits&4 != 0, throttle: bits&8 != 0})
	}
	return out
}

// The reference cloud's timing and rate limit.
const (
	refOperationTime = 5 * time.Second
	refSearchLag     = time.Second
	refBurst         = 4
	refRetryAfter    = 2 * time.Second // above ensure's inline retries, so that no test sleeps
)

// refSpec is the spec of a reference resource.
type refSpec struct{ Name string }

// refResource is a reference resource as the cloud reports it.
type refResource struct {
	ID, Name, State string
	Tags            map[string]string
}

// States of a reference resource.
const (
	refCreating = "creating"
	refReady    = "ready"
	refBusy     = "busy"
)

// refRecord is a resource the cloud holds.
type refRecord struct {
	res   refResource
	ready time.Time // when its create ended
	busy  bool
}

// refOperation is a create, asynchronous or not.
type refOperation struct {
	id     string // of the resource it makes; empty when it fails
	ends   time.Time
	failed bool
}

// refCloud is the reference cloud, on a fake clock, and its ensure.Resource, ensure.PendingReporter,
// ensure.OperationPoller and ensure.Declarer, which declares exactly what the cloud does.
type refCloud struct {
	cfg      refConfig
	bugs     refBugs
	now      time.Time
	byID     map[string]*refRecord
	order    []string // resource IDs in creation order
	ops      map[string]*refOperation
	tokens   map[string]string // idempotency token → operation
	next     int
	failNext bool
	// the rate limit: calls since the last refusal, and until when calls are refused
	used         int
	blockedUntil time.Time
	seen         refStats
}

// refStats counts what the switches of a reference cloud did.
type refStats struct {
	accepted  int // creates answered with an operation
	unlisted  int // searches that missed a resource carrying the tags
	tokens    int // creates answered with the resource or operation of an earlier create
	throttled int // calls refused
}

// add returns the sum of s and o.
func (s refStats) add(o refStats) refStats {
	return refStats{s.accepted + o.accepted, s.unlisted + o.unlisted, s.tokens + o.tokens, s.throttled + o.throttled}
}

func newRefCloud(cfg refConfig) *refCloud {
	return &refCloud{cfg: cfg, now: scenarioEpoch, byID: map[string]*refRecord{}, ops: map[string]*refOperation{}, tokens: map[string]string{}}
}

var (
	_ ensure.PendingReporter[*refResource] = (*refCloud)(nil)
	_ ensure.OperationPoller[*refResource] = (*refCloud)(nil)
	_ ensure.Declarer                      = (*refCloud)(nil)
)

// errTooManyRequests is the cloud's 429.
var errTooManyRequests = errors.New("429 Too Many Requests")

// call counts a call against the rate limit.
func (c *refCloud) call() error {
	if !c.cfg.throttle {
		return nil
	}
	if c.now.Before(c.blockedUntil) || c.used >= refBurst {
		c.used, c.blockedUntil = 0, c.now.Add(refRetryAfter)
		c.seen.throttled++
		return step.Throttled(errTooManyRequests, refRetryAfter)
	}
	c.used++
	return nil
}

func (c *refCloud) Guarantees() ensure.Guarantees {
	g := ensure.Guarantees{Idempotency: ensure.NotIdempotent, ImmediateSearch: !c.cfg.lag}
	if c.cfg.tokens {
		g.Idempotency = ensure.IdempotentByToken
	}
	if c.cfg.lag {
		g.SearchLag = refSearchLag
		if c.cfg.async {
			g.SearchLag += refOperationTime
		}
	}
	return g
}

func (c *refCloud) Validate(s refSpec) error {
	if s.Name == "" {
		return errors.New("name must not be empty")
	}
	return nil
}

func (c *refCloud) ID(r *refResource) string { return r.ID }

// observe returns the resource of rec as the cloud reports it now.
func (c *refCloud) observe(rec *refRecord) *refResource {
	out := rec.res
	out.Tags = maps.Clone(rec.res.Tags)
	switch {
	case c.now.Before(rec.ready):
		out.State = refCreating
	case rec.busy:
		out.State = refBusy
	default:
		out.State = refReady
	}
	return &out
}

func (c *refCloud) Get(_ context.Context, id string) (*refResource, bool, error) {
	if err := c.call(); err != nil {
		return nil, false, err
	}
	rec, ok := c.byID[id]
	if !ok {
		return nil, false, nil
	}
	return c.observe(rec), true, nil
}

func (c *refCloud) FindByTags(_ context.Context, tags map[string]string) (*refResource, bool, error) {
	if err := c.call(); err != nil {
		return nil, false, err
	}
	for _, id := range c.order {
		rec, ok := c.byID[id]
		switch {
		case !ok || !hasTags(rec.res.Tags, tags):
		case c.listed(rec):
			return c.observe(rec), true, nil
		default:
			c.seen.unlisted++
		}
	}
	return nil, false, nil
}

// listed reports whether the search lists rec now.
func (c *refCloud) listed(rec *refRecord) bool {
	switch {
	case c.cfg.lag && c.bugs.laterSearch:
		return !c.now.Before(rec.ready.Add(2 * refSearchLag))
	case c.cfg.lag:
		return !c.now.Before(rec.ready.Add(refSearchLag))
	case c.bugs.hidesCreating:
		return !c.now.Before(rec.ready)
	}
	return true // at once, while it is being created too
}

// hasTags reports whether tags holds every tag of want.
func hasTags(tags, want map[string]string) bool {
	for k, v := range want {
		if tags[k] != v {
			return false
		}
	}
	return true
}

func (c *refCloud) Create(_ context.Context, s refSpec, token string, tags map[string]string) (*refResource, error) {
	if err := c.call(); err != nil {
		return nil, err
	}
	if opID, ok := c.tokens[token]; ok && c.cfg.tokens {
		if op := c.ops[opID]; !op.failed && c.byID[op.id] != nil {
			c.seen.tokens++
			return c.answer(opID)
		}
	}
	c.next++
	opID := fmt.Sprintf("op-%d", c.next)
	op := &refOperation{ends: c.now}
	if c.cfg.async {
		op.ends = c.now.Add(refOperationTime)
	}
	if c.failNext {
		c.failNext, op.failed = false, true
	} else {
		op.id = fmt.Sprintf("res-%d", c.next)
		c.byID[op.id] = &refRecord{res: refResource{ID: op.id, Name: s.Name, Tags: maps.Clone(tags)}, ready: op.ends}
		c.order = append(c.order, op.id)
	}
	c.ops[opID], c.tokens[token] = op, opID
	return c.answer(opID)
}

// answer is the response to a create of the operation opID: the operation on an asynchronous cloud, its
// resource otherwise.
func (c *refCloud) answer(opID string) (*refResource, error) {
	op := c.ops[opID]
	switch {
	case c.bugs.holdsWorker:
		if c.now.Before(op.ends) {
			c.now = op.ends // the caller waits for the operation
		}
		if op.failed {
			return nil, fmt.Errorf("operation %q: quota exceeded", opID)
		}
	case c.cfg.async:
		c.seen.accepted++
		return nil, ensure.Accepted(opID)
	}
	return c.observe(c.byID[op.id]), nil
}

func (c *refCloud) PollOperation(_ context.Context, opID string) (*refResource, bool, error) {
	if err := c.call(); err != nil {
		return nil, false, err
	}
	op, ok := c.ops[opID]
	switch {
	case !ok:
		return nil, false, fmt.Errorf("operation %q not found", opID)
	case c.now.Before(op.ends):
		return nil, false, nil
	case op.failed && c.bugs.opaqueFailure:
		return nil, false, fmt.Errorf("operation %q: quota exceeded", opID)
	case op.failed:
		return nil, false, fmt.Errorf("operation %q: quota exceeded: %w", opID, ensure.ErrOperationFailed)
	}
	if rec, ok := c.byID[op.id]; ok {
		return c.observe(rec), true, nil
	}
	return &refResource{ID: op.id}, true, nil // made, and deleted since
}

func (c *refCloud) Delete(_ context.Context, id string) error {
	if err := c.call(); err != nil {
		return err
	}
	delete(c.byID, id)
	return nil
}

func (c *refCloud) Pending(r *refResource) (string, string, bool) {
	return "", "the resource is " + r.State, r.State == refCreating || r.State == refBusy
}

// fixture returns the scenarios' fixture of c.
func (c *refCloud) fixture(res ensure.Resource[refSpec, *refResource]) CloudFixture[refSpec, *refResource] {
	f := CloudFixture[refSpec, *refResource]{
		Resource:        res,
		Count:           func() int { return len(c.byID) },
		DeleteOutOfBand: func(id string) error { delete(c.byID, id); return nil },
		MakePending:     func(id string) error { c.byID[id].busy = true; return nil },
		Advance:         func(d time.Duration) { c.now = c.now.Add(d) },
		AsyncCreate:     c.cfg.async,
	}
	if c.cfg.async {
		f.FailNextOperation = func() error { c.failNext = true; return nil }
	}
	if c.cfg.lag {
		f.LagSearch = func() error { return nil } // the search always lags
	}
	return f
}

// refUnderTest is the reference cloud of cfg under test.
func refUnderTest(cfg refConfig) ResourceUnderTest[refSpec, *refResource] {
	return buggyRefUnderTest(cfg, refBugs{})
}

// buggyRefUnderTest is the reference cloud of cfg, with bugs, under test.
func buggyRefUnderTest(cfg refConfig, bugs refBugs) ResourceUnderTest[refSpec, *refResource] {
	return ResourceUnderTest[refSpec, *refResource]{
		Key: "disk",
		New: func(testing.TB) CloudFixture[refSpec, *refResource] {
			c := newRefCloud(cfg)
			c.bugs = bugs
			return c.fixture(c)
		},
		ValidSpec:       refSpec{Name: "data"},
		InvalidSpec:     refSpec{},
		OutOfBandDelete: Recreate, // the token of a deleted resource makes a new one
	}
}
