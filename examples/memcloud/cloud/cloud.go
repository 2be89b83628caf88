package cloud

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultMaxUserDataSize is the default limit of InstanceSpec.UserData and
// InstanceGroupSpec.UserData: 16 KiB, as in EC2.
const DefaultMaxUserDataSize = 16 * 1024

// DefaultFlavors returns the flavors of a cloud created without WithFlavors: the sizes memcloud's
// provider offers (its API's v1beta2.Flavors), smallest first.
func DefaultFlavors() []string { return []string{"small", "medium", "large"} }

// DefaultSeed is the seed used when WithSeed is not given, so that a Cloud is deterministic by
// default.
const DefaultSeed uint64 = 1

// Cloud is an in-memory IaaS. All methods are safe for concurrent use.
//
// The API methods (Create*, Get*, Delete*, Find*, UpdateSecurityGroupRules,
// UpdateInstanceGroupUserData, ScaleInstanceGroup, ResizeInstance, TagInstance, RegisterTarget,
// DeregisterTarget, GetOperation) behave
// like a remote cloud API: they are counted (Calls), throttled by the rate limit when there is
// one (WithRateLimit), slowed down and failed by fault injection (FaultConfig, FailNext),
// honour context cancellation and return copies, never internal pointers. The inspection methods (Count, List, Report, InstanceUserData, AccountOf, ...) and
// the account methods (CreateAccount, RotateCredentials, ...) are for tests and demos: they
// are never counted, delayed or failed, need no credentials and see every account (they see a
// resource whose create operation still runs, too).
//
// Idempotency tokens: a create request with a non-empty IdempotencyToken already used for the
// same kind creates nothing and returns the resource created by the first request, even if
// that request's response was lost. If the parameters differ from the first request the call
// fails with ErrTokenMismatch; if that resource has been deleted since it fails with
// ErrTokenReused, so that a stale retry never brings a deleted resource back. Tokens are per
// kind and account and never expire. A request that failed before the change (invalid
// parameter, injected fault before the change) does not use up its token. On a cloud with
// asynchronous creates (WithAsyncCreates) a token returns the operation of the first request
// while it runs; WithoutTokens makes the cloud ignore tokens.
//
// Accounts: a cloud without accounts needs no credentials. From its first account on
// (CreateAccount), every API call must carry the valid credentials of an account on its
// context (WithCredentials), checked on every call, or fail with ErrUnauthorized before doing
// anything else (no fault, no delay, nothing created, changed or revealed). The resources a
// call creates belong to its account; calls with another account's credentials see nothing
// of them: Get, Delete, Update, Scale and Register fail with ErrNotFound, Find leaves them out,
// a parent ID of another account is "does not exist" and each account has its own
// idempotency tokens, quotas, search lag and rate limit bucket. IDs are unique across accounts.
//
// Rate limit: with WithRateLimit or SetRateLimit, every API call admitted for its credentials
// takes a token from its account's bucket, or fails with ErrThrottled before doing anything
// else (no fault, no delay, nothing created, changed or revealed).
type Cloud struct {
	mu sync.Mutex

	now         func() time.Time
	ids         *rand.Rand // resource IDs
	rng         *rand.Rand // fault decisions and jitter
	keyIDs      *rand.Rand // access key IDs
	faults      FaultConfig
	scripted    map[Op][]FaultMode
	pendingGets int
	flavors     []string
	maxUserData int
	quotas      map[Kind]int
	limit       *rateLimit         // nil: no rate limit
	buckets     map[string]*bucket // by account name, "" for calls without credentials

	asyncCreates time.Duration // WithAsyncCreates: how long a create operation runs; 0: creates are synchronous
	searchLag    time.Duration // WithSearchLag: how long after it exists Find lists a resource
	noTokens     bool          // WithoutTokens: idempotency tokens are ignored

	accounts    map[string]*account // by name
	accessKeys  map[string]*account // by access key ID
	hasAccounts bool                // an account was created: every call needs credentials

	records      map[string]*record
	index        recordIndex           // lookups of records by tag, referrer and load balancer target
	staticIPs    map[netip.Addr]string // static addresses of live instances -> instance ID
	issued       map[string]bool       // every resource and access key ID ever issued, never reused
	tokens       map[tokenKey]*tokenEntry
	ops          map[string]*operation // create operations by ID (WithAsyncCreates), kept forever
	findSeq      map[scope]uint64      // Find calls per account and kind, the clock of search lag
	seq          uint64                // creation order
	live         map[Kind]int
	liveIn       map[scope]int // live resources per account and kind, for quotas
	totalCreated int
	stats        Stats
}

// scope is a kind of resource in one account ("" for resources created without credentials).
type scope struct {
	account string
	kind    Kind
}

// Option configures a Cloud.
type Option func(*Cloud)

// WithSeed seeds the random generators of IDs (of resources and access keys), fault decisions
// and latency jitter. Two clouds with the same seed and options given the same sequence of
// calls behave identically. Secret access keys do not come from the seed: see CreateAccount.
// Default: DefaultSeed.
func WithSeed(seed uint64) Option {
	return func(c *Cloud) {
		c.ids = rand.New(rand.NewPCG(seed, 0x6d656d636c6f7564))
		c.rng = rand.New(rand.NewPCG(seed, 0x6661756c7473))
		c.keyIDs = rand.New(rand.NewPCG(seed, 0x6b657973))
	}
}

// WithClock sets the clock that stamps CreatedAt and refills the buckets of the rate limit
// (WithRateLimit). It is called with the cloud's lock held. Default: time.Now. A nil clock is
// ignored.
func WithClock(now func() time.Time) Option {
	return func(c *Cloud) {
		if now != nil {
			c.now = now
		}
	}
}

// WithFaults sets the initial fault injection; see FaultConfig and Cloud.SetFaults.
func WithFaults(f FaultConfig) Option {
	return func(c *Cloud) {
		c.faults = f
		c.faults.Ops = slices.Clone(f.Ops)
	}
}

// WithPendingGets makes every new instance stay InstancePending for its first n GetInstance
// calls (GetInstance or GetInstanceGroup calls for the instances of a group); the call after
// those returns it InstanceRunning. Default 0: instances are running at once.
func WithPendingGets(n int) Option {
	return func(c *Cloud) { c.pendingGets = n }
}

// WithFlavors sets the flavors of the cloud's instances: CreateInstance, CreateInstanceGroup and
// ResizeInstance refuse any other with ErrInvalidParameter. At least one, none empty or listed twice.
// Default: DefaultFlavors.
func WithFlavors(flavors ...string) Option {
	return func(c *Cloud) { c.flavors = slices.Clone(flavors) }
}

// WithQuota limits the number of live resources of a kind to maxLive in each account (in the
// whole cloud when it has no account); creating one more fails with ErrQuotaExceeded. The
// instances of instance groups count as instances. Default: no limit.
func WithQuota(kind Kind, maxLive int) Option {
	return func(c *Cloud) { c.quotas[kind] = maxLive }
}

// WithMaxUserDataSize sets the maximum size of the user data of instances and instance groups
// in bytes.
// Default: DefaultMaxUserDataSize.
func WithMaxUserDataSize(n int) Option {
	return func(c *Cloud) { c.maxUserData = n }
}

// New returns an empty cloud. It fails with ErrInvalidParameter when an option has a bad value.
func New(opts ...Option) (*Cloud, error) {
	c := &Cloud{
		now:         time.Now,
		scripted:    map[Op][]FaultMode{},
		flavors:     DefaultFlavors(),
		maxUserData: DefaultMaxUserDataSize,
		quotas:      map[Kind]int{},
		buckets:     map[string]*bucket{},
		accounts:    map[string]*account{},
		accessKeys:  map[string]*account{},
		records:     map[string]*record{},
		index:       newRecordIndex(),
		staticIPs:   map[netip.Addr]string{},
		issued:      map[string]bool{},
		tokens:      map[tokenKey]*tokenEntry{},
		ops:         map[string]*operation{},
		findSeq:     map[scope]uint64{},
		live:        map[Kind]int{},
		liveIn:      map[scope]int{},
		stats:       newStats(),
	}
	WithSeed(DefaultSeed)(c)
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
	if err := c.validateOptions(); err != nil {
		return nil, fmt.Errorf("cannot create cloud: %w", err)
	}
	return c, nil
}

func (c *Cloud) validateOptions() error {
	if c.asyncCreates < 0 {
		return invalid("asyncCreates", c.asyncCreates, "must not be negative")
	}
	if c.searchLag < 0 {
		return invalid("searchLag", c.searchLag, "must not be negative")
	}
	if err := c.validFaults(c.faults); err != nil {
		return err
	}
	if c.pendingGets < 0 {
		return invalid("pendingGets", c.pendingGets, "must not be negative")
	}
	if len(c.flavors) == 0 {
		return invalid("flavors", "", "must not be empty")
	}
	for i, f := range c.flavors {
		if f == "" || slices.Index(c.flavors, f) != i {
			return invalid("flavors", strings.Join(c.flavors, ","), "must not hold an empty flavor or a flavor twice")
		}
	}
	if c.maxUserData < 0 {
		return invalid("maxUserDataSize", c.maxUserData, "must not be negative")
	}
	for _, k := range Kinds() {
		if q, ok := c.quotas[k]; ok && q < 0 {
			return invalid("quota."+string(k), q, "must not be negative")
		}
	}
	for k := range c.quotas {
		if !k.valid() {
			return invalid("quota kind", k, "is not a known kind")
		}
	}
	if c.limit != nil {
		return c.limit.validate()
	}
	return nil
}
