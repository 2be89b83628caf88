package patch

import "slices"

// DefaultConflictRetries is how many times a guarded patch is re-applied after a conflict.
const DefaultConflictRetries = 5

// Option configures NewHelper.
type Option func(*options)

type options struct {
	conditionsPath []string
	writeOnce      []string
	owned          []string
	force          bool
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

// WithOwnedConditions names condition types the caller writes alone, such as a controller's Ready and the
// conditions of its steps: when another writer changed one of them since the read, the caller's value wins
// instead of ErrConditionConflict, and after a spec patch of this Helper moves the generation they observe
// the new one. Types given here and with Helper.OwnConditions add up.
func WithOwnedConditions(types ...string) Option {
	return func(o *options) { o.own(types) }
}

// WithForceOverwriteConditions makes every condition type owned (WithOwnedConditions) for conflicts: the
// caller's value always wins. It is for the controller that manages the object and no other writer; the
// observedGeneration of conditions it does not own or change is still left alone.
func WithForceOverwriteConditions() Option { return func(o *options) { o.force = true } }

// WithConflictRetries sets how many times a guarded patch is re-applied after a conflict (default
// DefaultConflictRetries); 0 returns the first conflict.
func WithConflictRetries(n int) Option { return func(o *options) { o.retries = n } }

// WithKind gives the object's kind, used in error messages, for a caller that has looked it up already;
// without it NewHelper looks it up in the client's scheme and refuses a type the scheme does not know.
func WithKind(kind string) Option { return func(o *options) { o.kind = kind } }

// own adds condition types to the owned ones. The first list is shared, clipped so that a later append
// copies it: a reconciler passes the same list to every Helper, which costs no allocation.
func (o *options) own(types []string) {
	if o.owned == nil {
		o.owned = slices.Clip(types)
		return
	}
	o.owned = append(o.owned, types...)
}

// wins reports whether the caller's value of condition type t wins a conflict: it owns t, or forces.
func (o *options) wins(t string) bool { return o.force || slices.Contains(o.owned, t) }
