package patch

import "slices"

// DefaultConflictRetries is how many times a guarded patch is re-applied after a conflict.
const DefaultConflictRetries = 5

// Option configures NewHelper.
type Option func(*options)

type options struct {
	conditionsPath []string
	writeOnce      []string
	retries        int
	kind           string
}

// WithConditionsPath says where the conditions of an object that does not implement conditions.Setter
// live, for example "status", "v1beta2", "conditions" for a v1beta1-contract object read as unstructured.
// Without it, and without conditions.Setter, conditions are patched as any other status field.
func WithConditionsPath(path ...string) Option {
	return func(o *options) { o.conditionsPath = slices.Clone(path) }
}

// WithWriteOnceLabels names labels that are never overwritten once the server has them: when a patch would
// set one that another writer set first, the server's value wins and is copied into the object.
func WithWriteOnceLabels(keys ...string) Option {
	return func(o *options) { o.writeOnce = append(o.writeOnce, keys...) }
}

// WithConflictRetries sets how many times a guarded patch is re-applied after a conflict (default
// DefaultConflictRetries); 0 returns the first conflict.
func WithConflictRetries(n int) Option { return func(o *options) { o.retries = n } }

// WithKind gives the object's kind, used in error messages, for a caller that has looked it up already;
// without it NewHelper looks it up in the client's scheme and refuses a type the scheme does not know.
func WithKind(kind string) Option { return func(o *options) { o.kind = kind } }
