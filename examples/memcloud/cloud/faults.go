package cloud

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// FaultConfig describes the faults and delays injected into API calls. The zero value injects
// nothing. Decisions come from the cloud's seeded generator, so a test that makes its calls in
// a fixed order sees the same faults on every run.
type FaultConfig struct {
	// BeforeChange is the probability, from 0 to 1, that a call fails with an error wrapping
	// ErrInjected before doing anything.
	BeforeChange float64
	// AfterChange is the probability, from 0 to 1, that a mutating call makes its change and
	// then fails with an error wrapping ErrInjected: the lost-response case. It is drawn only
	// when BeforeChange did not fire.
	AfterChange float64
	// Reads makes BeforeChange apply to Get and Find calls too. Reads never get AfterChange
	// faults: they change nothing.
	Reads bool
	// Ops, when not empty, limits BeforeChange and AfterChange to these operations (read
	// operations listed here get BeforeChange faults even when Reads is false).
	Ops []Op
	// Latency delays every API call, reads included. The delay honours context cancellation.
	Latency time.Duration
	// Jitter adds a random delay from 0 to Jitter to Latency.
	Jitter time.Duration
	// SearchLag makes Find eventually consistent: a resource created while SearchLag is n is
	// missing from the next n Find calls of its kind in its account (whatever their tags) and
	// appears in the ones after. Get sees it at once. Counting calls instead of time keeps tests
	// deterministic; WithSearchLag is the lag of a cloud whose search always lags, in time.
	SearchLag int
	// InOperation is the probability, from 0 to 1, that a create accepted as an operation
	// (WithAsyncCreates) fails when the operation ends: the operation reports an error and
	// nothing is created. It is drawn for every create that starts an operation, whatever Ops,
	// and only on a cloud with asynchronous creates (New and SetFaults refuse it otherwise).
	InOperation float64
}

// Validate returns an ErrInvalidParameter error naming the first bad field, or nil.
func (f FaultConfig) Validate() error {
	switch {
	case !(f.BeforeChange >= 0 && f.BeforeChange <= 1):
		return invalid("faults.beforeChange", f.BeforeChange, "must be from 0 to 1")
	case !(f.AfterChange >= 0 && f.AfterChange <= 1):
		return invalid("faults.afterChange", f.AfterChange, "must be from 0 to 1")
	case f.Latency < 0:
		return invalid("faults.latency", f.Latency, "must not be negative")
	case f.Jitter < 0:
		return invalid("faults.jitter", f.Jitter, "must not be negative")
	case f.SearchLag < 0:
		return invalid("faults.searchLag", f.SearchLag, "must not be negative")
	case !(f.InOperation >= 0 && f.InOperation <= 1):
		return invalid("faults.inOperation", f.InOperation, "must be from 0 to 1")
	}
	for i, op := range f.Ops {
		if !op.valid() {
			return invalid(fmt.Sprintf("faults.ops[%d]", i), op, "is not an operation of the API")
		}
	}
	return nil
}

// applies reports whether probabilistic faults apply to op.
func (f FaultConfig) applies(op Op) bool {
	if len(f.Ops) > 0 {
		return slices.Contains(f.Ops, op)
	}
	return op.Mutating() || f.Reads
}

// FaultMode says when a scripted fault (FailNext) strikes.
type FaultMode int

const (
	// BeforeChange fails the call before it does anything.
	BeforeChange FaultMode = iota + 1
	// AfterChange makes the change and then fails the call (the response is lost). On a read
	// it behaves like BeforeChange.
	AfterChange
	// InOperation makes a create on a cloud with asynchronous creates (WithAsyncCreates) start an
	// operation that fails when it ends: nothing is created. A create that replays the
	// idempotency token of an operation takes the fault and starts nothing.
	InOperation
)

// String returns "BeforeChange", "AfterChange" or "InOperation".
func (m FaultMode) String() string {
	switch m {
	case BeforeChange:
		return "BeforeChange"
	case AfterChange:
		return "AfterChange"
	case InOperation:
		return "InOperation"
	}
	return fmt.Sprintf("FaultMode(%d)", int(m))
}

// SetFaults replaces the fault configuration; it affects calls that start afterwards.
// SetFaults(FaultConfig{}) stops probabilistic faults and delays (scripted ones stay queued).
func (c *Cloud) SetFaults(f FaultConfig) error {
	if err := c.validFaults(f); err != nil {
		return fmt.Errorf("cannot set faults: %w", err)
	}
	f.Ops = slices.Clone(f.Ops)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = f
	return nil
}

// Faults returns the current fault configuration.
func (c *Cloud) Faults() FaultConfig {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.faults
	f.Ops = slices.Clone(f.Ops)
	return f
}

// validFaults checks f for this cloud: InOperation needs asynchronous creates.
func (c *Cloud) validFaults(f FaultConfig) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f.InOperation > 0 && c.asyncCreates == 0 {
		return invalid("faults.inOperation", f.InOperation, "needs asynchronous creates (WithAsyncCreates)")
	}
	return nil
}

// FailNext queues a fault for the next call of op, before any probabilistic decision. Several
// faults queued for the same op strike the following calls in order. It is the deterministic
// way to test one failure at one precise point. InOperation is for the create operations of a
// cloud with asynchronous creates only.
func (c *Cloud) FailNext(op Op, mode FaultMode) error {
	if !op.valid() {
		return fmt.Errorf("cannot queue fault: %w", invalid("op", op, "is not an operation of the API"))
	}
	switch {
	case mode != BeforeChange && mode != AfterChange && mode != InOperation:
		return fmt.Errorf("cannot queue fault: %w", invalid("mode", mode, "must be BeforeChange, AfterChange or InOperation"))
	case mode == InOperation && (op.Verb != VerbCreate || c.asyncCreates == 0):
		return fmt.Errorf("cannot queue fault: %w", invalid("mode", mode, "is for creates on a cloud with asynchronous creates (WithAsyncCreates)"))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scripted[op] = append(c.scripted[op], mode)
	return nil
}

// call is an API call admitted by begin.
type call struct {
	// account is the account of the call's credentials; nil for a call without credentials to
	// a cloud that never had an account.
	account *account
	// accessKeyID is the access key ID of the call's credentials.
	accessKeyID string
	// after tells the call to fail after making its change.
	after bool
	// failOperation tells a create to start an operation that fails (InOperation).
	failOperation bool
}

// owner returns the name of the account that owns what the call creates and sees: "" for a
// call without credentials.
func (k call) owner() string {
	if k.account == nil {
		return ""
	}
	return k.account.name
}

// begin is the prologue of every API call: it counts the call, checks its credentials and the
// context, takes a token from the rate limit, waits for the injected latency and injects a
// fault before the change. A call refused for its credentials or throttled is neither delayed
// nor failed by fault injection, and takes no queued fault. The returned call says who makes
// it and whether it must fail after making its change.
func (c *Cloud) begin(ctx context.Context, op Op) (call, error) {
	if ctx == nil {
		return call{}, invalid("ctx", "<nil>", "must not be nil")
	}
	creds, present := CredentialsFrom(ctx)
	c.mu.Lock()
	c.stats.count(op)
	acct, err := c.authenticateLocked(op, creds, present)
	if err != nil {
		c.stats.Unauthorized++
		c.mu.Unlock()
		return call{}, err
	}
	if acct != nil {
		c.stats.ByAccount[acct.name]++
	}
	if err := ctx.Err(); err != nil {
		c.mu.Unlock()
		return call{}, err
	}
	k := call{account: acct, accessKeyID: creds.AccessKeyID}
	if retryAfter, throttled := c.throttleLocked(k.owner()); throttled {
		c.stats.Throttled++
		if acct != nil {
			c.stats.ThrottledByAccount[acct.name]++
		}
		c.mu.Unlock()
		return call{}, &ThrottledError{Op: op, Account: k.owner(), RetryAfter: retryAfter}
	}
	p := c.planLocked(op)
	c.mu.Unlock()
	if err := sleep(ctx, p.delay); err != nil {
		return call{}, err
	}
	if p.before {
		c.mu.Lock()
		c.stats.Faults++
		c.mu.Unlock()
		return call{}, &FaultError{Op: op}
	}
	k.after, k.failOperation = p.after, p.inOperation
	return k, nil
}

// admitLocked fails with ErrUnauthorized when the call's account was deleted after begin
// admitted the call, so that nothing is created for an account that no longer exists.
func (c *Cloud) admitLocked(op Op, k call) error {
	if k.account != nil && c.accounts[k.account.name] != k.account {
		return &UnauthorizedError{Op: op, AccessKeyID: k.accessKeyID, Reason: reasonAccountDeleted}
	}
	return nil
}

// plan is what fault injection decided for one call.
type plan struct {
	// before fails the call before any change, after once it made its change; inOperation makes
	// the operation of a create fail.
	before, after, inOperation bool
	// delay is the injected latency.
	delay time.Duration
}

// planLocked decides the faults and the delay of one call.
func (c *Cloud) planLocked(op Op) plan {
	f := c.faults
	p := plan{delay: f.Latency}
	if f.Jitter > 0 {
		p.delay += time.Duration(c.rng.Int64N(int64(f.Jitter) + 1))
	}
	if q := c.scripted[op]; len(q) > 0 {
		c.scripted[op] = q[1:]
		switch {
		case q[0] == InOperation:
			p.inOperation = true
		case q[0] == AfterChange && op.Mutating():
			p.after = true
		default:
			p.before = true
		}
		return p
	}
	if f.applies(op) {
		switch {
		case f.BeforeChange > 0 && c.rng.Float64() < f.BeforeChange:
			p.before = true
			return p
		case op.Mutating() && f.AfterChange > 0 && c.rng.Float64() < f.AfterChange:
			p.after = true
		}
	}
	if op.Verb == VerbCreate && f.InOperation > 0 && c.rng.Float64() < f.InOperation {
		p.inOperation = true
	}
	return p
}

// faultLocked counts and returns an after-change fault.
func (c *Cloud) faultLocked(op Op) error {
	c.stats.Faults++
	return &FaultError{Op: op, Applied: true}
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
