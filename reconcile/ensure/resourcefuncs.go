package ensure

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// ResourceFuncs are the functions of a Resource built by NewResource, for a cloud SDK whose calls map one to
// one onto the methods of Resource. Build GetFunc, FindByTagsFunc and DeleteFunc from the cloud's calls with
// GoneIfNotFound, FindOldest and IgnoreErrors.
type ResourceFuncs[S, O any] struct {
	// ResourceKind names the kind of cloud resource in capkit's metrics (Kinded); the Exists key when empty.
	ResourceKind string
	// ValidateFunc implements Validate; nil accepts every spec.
	ValidateFunc func(spec S) error
	// GetFunc implements Get; required.
	GetFunc func(ctx context.Context, id string) (obs O, found bool, err error)
	// FindByTagsFunc implements FindByTags; required.
	FindByTagsFunc func(ctx context.Context, tags map[string]string) (obs O, found bool, err error)
	// CreateFunc implements Create; required.
	CreateFunc func(ctx context.Context, spec S, token string, tags map[string]string) (O, error)
	// DeleteFunc implements Delete; required.
	DeleteFunc func(ctx context.Context, id string) error
	// IDFunc implements ID; required.
	IDFunc func(obs O) string
	// PendingFunc, when set, makes the Resource a PendingReporter.
	PendingFunc func(obs O) (reason, message string, pending bool)
	// DiffFunc, when set, makes the Resource an Updater, whose Update calls UpdateFunc.
	DiffFunc func(spec S, obs O) (fields []string, replace bool)
	// UpdateFunc implements Update; required with DiffFunc.
	UpdateFunc func(ctx context.Context, id string, spec S, obs O) (O, error)
	// ClassifyFunc, when set, gives every error the other functions return its class for the reconciler
	// (step.Terminal, step.Throttled), e.g. a cloud's quota error made terminal.
	ClassifyFunc func(err error) error
	// PollOperationFunc implements OperationPoller: required when CreateFunc returns Accepted.
	PollOperationFunc func(ctx context.Context, op string) (obs O, done bool, err error)
	// FindOperationFunc, when set with PollOperationFunc, implements OperationFinder: it finds the operation of a
	// create whose handle was lost.
	FindOperationFunc func(ctx context.Context, token string, since time.Time) (op string, found bool, err error)
	// Guarantees are the cloud's Guarantees (the Resource is a Declarer); the zero value promises nothing and
	// gets the careful behaviour.
	Guarantees Guarantees
}

// NewResource returns the Resource of f: a PendingReporter when f has PendingFunc, an Updater when it has
// DiffFunc (Exists finds out which by type assertion, so a Resource that does not update in place is never
// asked for the spec of a resource it finds). A method whose required function is nil returns an error that
// names it.
func NewResource[S, O any](f ResourceFuncs[S, O]) Resource[S, O] {
	r := funcsResource[S, O]{f}
	switch {
	case f.PendingFunc != nil && f.DiffFunc != nil:
		return pendingUpdaterFuncs[S, O]{r}
	case f.PendingFunc != nil:
		return pendingFuncs[S, O]{r}
	case f.DiffFunc != nil:
		return updaterFuncs[S, O]{r}
	}
	return r
}

// funcsResource is the Resource of ResourceFuncs, and Kinded.
type funcsResource[S, O any] struct{ f ResourceFuncs[S, O] }

// pendingFuncs is a funcsResource and a PendingReporter.
type pendingFuncs[S, O any] struct{ funcsResource[S, O] }

// updaterFuncs is a funcsResource and an Updater.
type updaterFuncs[S, O any] struct{ funcsResource[S, O] }

// pendingUpdaterFuncs is a funcsResource, a PendingReporter and an Updater.
type pendingUpdaterFuncs[S, O any] struct{ funcsResource[S, O] }

var (
	_ Kinded                   = funcsResource[string, *string]{}
	_ Declarer                 = funcsResource[string, *string]{}
	_ OperationPoller[*string] = funcsResource[string, *string]{}
	_ PendingReporter[*string] = pendingFuncs[string, *string]{}
	_ Updater[string, *string] = updaterFuncs[string, *string]{}
	_ PendingReporter[*string] = pendingUpdaterFuncs[string, *string]{}
	_ Updater[string, *string] = pendingUpdaterFuncs[string, *string]{}
)

// missingFunc is the error of a method whose function is nil.
func missingFunc(name string) error {
	return fmt.Errorf("cannot call the cloud: ResourceFuncs.%s is nil", name)
}

func (r funcsResource[S, O]) Kind() string { return r.f.ResourceKind }

func (r funcsResource[S, O]) Validate(spec S) error {
	if r.f.ValidateFunc == nil {
		return nil
	}
	return r.f.ValidateFunc(spec)
}

func (r funcsResource[S, O]) Get(ctx context.Context, id string) (obs O, found bool, err error) {
	if r.f.GetFunc == nil {
		return obs, false, missingFunc("GetFunc")
	}
	obs, found, err = r.f.GetFunc(ctx, id)
	return obs, found, r.classify(err)
}

func (r funcsResource[S, O]) FindByTags(ctx context.Context, tags map[string]string) (obs O, found bool, err error) {
	if r.f.FindByTagsFunc == nil {
		return obs, false, missingFunc("FindByTagsFunc")
	}
	obs, found, err = r.f.FindByTagsFunc(ctx, tags)
	return obs, found, r.classify(err)
}

func (r funcsResource[S, O]) Create(ctx context.Context, spec S, token string, tags map[string]string) (O, error) {
	if r.f.CreateFunc == nil {
		var zero O
		return zero, missingFunc("CreateFunc")
	}
	obs, err := r.f.CreateFunc(ctx, spec, token, tags)
	return obs, r.classify(err)
}

func (r funcsResource[S, O]) Delete(ctx context.Context, id string) error {
	if r.f.DeleteFunc == nil {
		return missingFunc("DeleteFunc")
	}
	return r.classify(r.f.DeleteFunc(ctx, id))
}

func (r funcsResource[S, O]) ID(obs O) string {
	if r.f.IDFunc == nil {
		return ""
	}
	return r.f.IDFunc(obs)
}

func (r funcsResource[S, O]) Guarantees() Guarantees { return r.f.Guarantees }

// finds reports whether FindOperation can find an operation (FindOperationFunc is set).
func (r funcsResource[S, O]) finds() bool { return r.f.FindOperationFunc != nil }

func (r funcsResource[S, O]) FindOperation(ctx context.Context, token string, since time.Time) (op string, found bool, err error) {
	if r.f.FindOperationFunc == nil {
		return "", false, missingFunc("FindOperationFunc")
	}
	op, found, err = r.f.FindOperationFunc(ctx, token, since)
	return op, found, r.classify(err)
}

// polls reports whether PollOperation can read an operation (PollOperationFunc is set).
func (r funcsResource[S, O]) polls() bool { return r.f.PollOperationFunc != nil }

func (r funcsResource[S, O]) PollOperation(ctx context.Context, op string) (obs O, done bool, err error) {
	if r.f.PollOperationFunc == nil {
		return obs, false, missingFunc("PollOperationFunc")
	}
	obs, done, err = r.f.PollOperationFunc(ctx, op)
	if errors.Is(err, ErrOperationFailed) {
		return obs, done, err // a failed operation is an outcome, not an error to classify
	}
	return obs, done, r.classify(err)
}

func (r funcsResource[S, O]) classify(err error) error {
	if err == nil || r.f.ClassifyFunc == nil {
		return err
	}
	return r.f.ClassifyFunc(err)
}

func (r funcsResource[S, O]) pending(obs O) (reason, message string, pending bool) {
	return r.f.PendingFunc(obs)
}

func (r funcsResource[S, O]) diff(spec S, obs O) (fields []string, replace bool) {
	return r.f.DiffFunc(spec, obs)
}

func (r funcsResource[S, O]) update(ctx context.Context, id string, spec S, obs O) (O, error) {
	if r.f.UpdateFunc == nil {
		var zero O
		return zero, missingFunc("UpdateFunc")
	}
	out, err := r.f.UpdateFunc(ctx, id, spec, obs)
	return out, r.classify(err)
}

func (r pendingFuncs[S, O]) Pending(obs O) (string, string, bool) { return r.pending(obs) }

func (r updaterFuncs[S, O]) Diff(spec S, obs O) ([]string, bool) { return r.diff(spec, obs) }

func (r updaterFuncs[S, O]) Update(ctx context.Context, id string, spec S, obs O) (O, error) {
	return r.update(ctx, id, spec, obs)
}

func (r pendingUpdaterFuncs[S, O]) Pending(obs O) (string, string, bool) { return r.pending(obs) }

func (r pendingUpdaterFuncs[S, O]) Diff(spec S, obs O) ([]string, bool) { return r.diff(spec, obs) }

func (r pendingUpdaterFuncs[S, O]) Update(ctx context.Context, id string, spec S, obs O) (O, error) {
	return r.update(ctx, id, spec, obs)
}

// GoneIfNotFound adapts a cloud's read of one resource, which fails when the resource does not exist, to
// Resource.Get: an error for which notFound is true means the resource is gone (found false, no error).
func GoneIfNotFound[O any](get func(ctx context.Context, id string) (O, error), notFound func(error) bool) func(ctx context.Context, id string) (O, bool, error) {
	return func(ctx context.Context, id string) (O, bool, error) {
		obs, err := get(ctx, id)
		switch {
		case err != nil && notFound(err):
			var zero O
			return zero, false, nil
		case err != nil:
			var zero O
			return zero, false, err
		}
		return obs, true, nil
	}
}

// IgnoreErrors adapts a cloud's delete to Resource.Delete: an error for which one of ignore is true is
// success, e.g. NotFound (deleting a resource that is gone is not an error), or a delete the cloud refused
// because other resources still depend on the resource (Deleted sees it is still there and waits).
func IgnoreErrors(del func(ctx context.Context, id string) error, ignore ...func(error) bool) func(ctx context.Context, id string) error {
	return func(ctx context.Context, id string) error {
		err := del(ctx, id)
		if err != nil && slices.ContainsFunc(ignore, func(is func(error) bool) bool { return is(err) }) {
			return nil
		}
		return err
	}
}

// FindOldest adapts a cloud's list of the resources carrying tags to Resource.FindByTags: the oldest of them
// by createdAt, or the first listed with a nil createdAt (a cloud that lists in creation order); ties go to
// the first listed.
func FindOldest[E any](list func(ctx context.Context, tags map[string]string) ([]E, error), createdAt func(*E) time.Time) func(ctx context.Context, tags map[string]string) (*E, bool, error) {
	return func(ctx context.Context, tags map[string]string) (*E, bool, error) {
		found, err := list(ctx, tags)
		if err != nil || len(found) == 0 {
			return nil, false, err
		}
		oldest := 0
		for i := 1; createdAt != nil && i < len(found); i++ {
			if createdAt(&found[i]).Before(createdAt(&found[oldest])) {
				oldest = i
			}
		}
		return &found[oldest], true, nil
	}
}
