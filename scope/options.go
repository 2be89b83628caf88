package scope

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/patch"
	"github.com/capkit/capkit/redact"
)

// Option configures NewClusterScope and NewMachineScope.
type Option func(*options)

type options struct {
	logger        logr.Logger
	version       contract.Version
	resourcesPath contract.Path
	// resourcesPathSet is true when WithResourcesPath was given: a typed object refuses it.
	resourcesPathSet bool
	keyGen           func() (string, error)
	retries          int
	secretReader     client.Reader
	redactor         *redact.Redactor
	patchOpts        []patch.Option
}

// defaultResourcesPath is where an unstructured object keeps its resource IDs unless WithResourcesPath says
// otherwise; it is never modified (WithResourcesPath stores a copy of its argument).
var defaultResourcesPath = contract.Path{"status", "resources"}

// setOptions sets o to the defaults and applies opts; o lives in the scope, so that applying options costs no
// allocation of its own.
func setOptions(o *options, opts []Option) {
	*o = options{
		logger:        logr.Discard(),
		resourcesPath: defaultResourcesPath,
		keyGen:        newOwnershipKey,
		retries:       patch.DefaultConflictRetries,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
}

// WithLogger sets the logger the scope hands to provider code through Logger; the scope itself never logs.
// The default discards everything.
func WithLogger(l logr.Logger) Option { return func(o *options) { o.logger = l } }

// WithContractVersion sets the contract version whose field paths the scope reads and writes. Without it the
// scope reads the cluster.x-k8s.io/<contract> label of the infra object's CRD (which needs RBAC to get and
// list customresourcedefinitions).
func WithContractVersion(v contract.Version) Option { return func(o *options) { o.version = v } }

// WithResourcesPath sets where the resource-ID map of an unstructured infra object lives; the default is
// status.resources. Typed objects implement ResourceIDsAccessor instead, and their scope constructors refuse
// this option rather than ignore it.
func WithResourcesPath(path ...string) Option {
	return func(o *options) {
		o.resourcesPath = append(contract.Path(nil), path...)
		o.resourcesPathSet = true
	}
}

// WithOwnershipKeyGenerator replaces the generator of ownership keys (by default 26 random lower-case base32
// characters, 130 bits), for deterministic tests and examples.
func WithOwnershipKeyGenerator(gen func() (string, error)) Option {
	return func(o *options) {
		if gen != nil {
			o.keyGen = gen
		}
	}
}

// WithConflictRetries sets how many times a guarded patch is re-applied after a conflict (default
// patch.DefaultConflictRetries).
func WithConflictRetries(n int) Option { return func(o *options) { o.retries = n } }

// WithSecretReader reads the bootstrap data Secret through r instead of the scope's client. The reconcilers'
// SetupWithManager passes the manager's uncached API reader, so that no controller caches (and watches) every
// Secret of the cluster by accident; pass the manager's client to read Secrets from its cache instead.
func WithSecretReader(r client.Reader) Option { return func(o *options) { o.secretReader = r } }

// WithRedactor registers the bootstrap data the scope reads with r, and masks what r knows in every condition
// message before each patch (PatchNow, Close), the Ready summary included. capkit's reconcilers pass the
// Redactor of each reconcile; without it the scope masks nothing.
func WithRedactor(r *redact.Redactor) Option { return func(o *options) { o.redactor = r } }

// WithOwnedConditions names the condition types the scope's caller writes alone (patch.WithOwnedConditions):
// when another writer changed one since the read, the caller's value wins instead of
// patch.ErrConditionConflict, and they observe the new generation after the scope's own spec change.
// capkit's reconcilers pass Ready, Paused, Deleting, IdentityReady and the condition of each step.
func WithOwnedConditions(types ...string) Option {
	po := patch.WithOwnedConditions(types...)
	return func(o *options) { o.patchOpts = append(o.patchOpts, po) }
}

// newOwnershipKey returns a new random ownership key: 26 lower-case base32 characters (130 bits), a valid
// label value and a valid cloud tag value.
func newOwnershipKey() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("cannot generate an ownership key: %w", err)
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)), nil
}
