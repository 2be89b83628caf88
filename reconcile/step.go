package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/redact"
)

// Service is one part of a provider's infrastructure (a network, a load balancer, a VM), reconciled through
// the scope interface S its reconciler gives: scope.ClusterScoper[*MyCluster] or scope.MachineScoper[*MyMachine].
// Reconcile and Delete report "not done yet" with a Result whose Done is false, never with an error; an
// error is throttled (step.Throttled), terminal (step.Terminal, controller-runtime's step.TerminalError), a
// refused identity (identity.RefusedError) or transient, retried with backoff. Classify says what the
// reconciler does with each.
type Service[S any] interface {
	// Reconcile moves the cloud towards the desired state; it must be idempotent (use Ensure).
	Reconcile(ctx context.Context, s S) (step.Result, error)
	// Delete deletes the service's cloud resources; it reports Done once they are gone.
	Delete(ctx context.Context, s S) (step.Result, error)
}

// ServiceFuncs adapts functions to Service; a nil function reports Done.
type ServiceFuncs[S any] struct {
	// ReconcileFunc implements Reconcile.
	ReconcileFunc func(ctx context.Context, s S) (step.Result, error)
	// DeleteFunc implements Delete.
	DeleteFunc func(ctx context.Context, s S) (step.Result, error)
}

// Reconcile calls ReconcileFunc, or reports Done when it is nil.
func (f ServiceFuncs[S]) Reconcile(ctx context.Context, s S) (step.Result, error) {
	if f.ReconcileFunc == nil {
		return step.Result{Done: true}, nil
	}
	return f.ReconcileFunc(ctx, s)
}

// Delete calls DeleteFunc, or reports Done when it is nil.
func (f ServiceFuncs[S]) Delete(ctx context.Context, s S) (step.Result, error) {
	if f.DeleteFunc == nil {
		return step.Result{Done: true}, nil
	}
	return f.DeleteFunc(ctx, s)
}

// Step is one ordered step of a reconciler: a service with its own condition. Steps reconcile in order and
// delete in reverse order; a step runs only when the steps before it are Done.
type Step[S any] struct {
	// Name names the step, e.g. "Network"; it must be unique within a reconciler.
	Name string
	// Condition is the step's condition type; Name + "Ready" when empty (e.g. "NetworkReady").
	Condition string
	// Service does the work.
	Service Service[S]
	// GenerationGated skips Reconcile while the step condition is True for the object's current
	// generation: for steps that only need to run again when the spec changes.
	GenerationGated bool
}

// ConditionType returns the step's condition type.
func (s Step[S]) ConditionType() string {
	if s.Condition != "" {
		return s.Condition
	}
	return s.Name + "Ready"
}

func validateSteps[S any](steps []Step[S]) error {
	if len(steps) == 0 {
		return errors.New("cannot create reconciler: steps must not be empty")
	}
	seen := map[string]bool{}
	for i, st := range steps {
		if st.Name == "" {
			return fmt.Errorf("cannot create reconciler: step %d: name must not be empty", i)
		}
		if st.Service == nil {
			return fmt.Errorf("cannot create reconciler: step %q: service must not be nil", st.Name)
		}
		if seen[st.ConditionType()] {
			return fmt.Errorf("cannot create reconciler: step %q: duplicate condition type %q", st.Name, st.ConditionType())
		}
		seen[st.ConditionType()] = true
	}
	return nil
}

// outcome is what running the steps asks of the reconciler.
type outcome struct {
	done         bool
	requeueAfter time.Duration
	err          error // returned to controller-runtime (backoff)
	throttled    bool  // the cloud throttled a step: requeued after its hint, not an error
}

// runSteps reconciles the steps in order and records each step's condition, as Classify says.
func (r *base) runSteps(ctx context.Context, obj conditionsObject, steps []stepRunner) outcome {
	var periodic time.Duration
	for _, st := range steps {
		cond := st.conditionType
		setter := obj.Conditions()
		if st.gated {
			if c := conditions.Get(setter, cond); c != nil && c.Status == "True" && c.ObservedGeneration == obj.Object().GetGeneration() {
				continue
			}
		}
		res, err := st.reconcile(ctx)
		c := classify(OpReconcile, res, err, r.pollInterval)
		switch c.Class {
		case ClassDone:
			// A step that becomes ready is visible in its condition; no event repeats it (one API request per
			// object at scale). Events are for what conditions do not say: what Ensure created, adopted or
			// updated, and errors.
			r.mark(ctx, obj, cond, "True", c.Reason, "")
			if c.RequeueAfter > 0 && (periodic == 0 || c.RequeueAfter < periodic) {
				periodic = c.RequeueAfter
			}
		case ClassInProgress:
			r.mark(ctx, obj, cond, "False", c.Reason, res.Message)
			return outcome{requeueAfter: c.RequeueAfter}
		default:
			return r.stepFailed(ctx, obj, cond, c, err)
		}
	}
	return outcome{done: true, requeueAfter: periodic}
}

// deleteSteps deletes the steps in reverse order; it reports done when every step is. Classify says what
// each step's result does: a step not done or failed is recorded in the Deleting condition.
func (r *base) deleteSteps(ctx context.Context, obj conditionsObject, steps []stepRunner) outcome {
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		res, err := st.delete(ctx)
		c := classify(OpDelete, res, err, r.pollInterval)
		switch c.Class {
		case ClassDone:
			r.mark(ctx, obj, st.conditionType, "False", c.Reason, "")
		case ClassInProgress:
			msg := st.name + " is being deleted"
			if res.Message != "" {
				msg = st.name + ": " + res.Message
			}
			r.mark(ctx, obj, conditions.Deleting, "True", c.Reason, msg)
			return outcome{requeueAfter: c.RequeueAfter}
		default:
			return r.stepFailed(ctx, obj, conditions.Deleting, c, err)
		}
	}
	return outcome{done: true}
}

// stepFailed records err, of the failed classification c, in cond: throttled (requeued after the cloud's
// hint and a backoff), terminal (no retry until the object changes), refused (looked at again after
// DefaultIdentityRecheck) or transient (returned to controller-runtime, which retries with backoff).
func (r *base) stepFailed(ctx context.Context, obj conditionsObject, cond string, c Classification, err error) outcome {
	switch c.Class {
	case ClassThrottled:
		return r.stepThrottled(ctx, obj, cond, c.RequeueAfter, err)
	case ClassTerminal:
		msg := terminalMessage(ctx, err)
		if r.mark(ctx, obj, cond, conditionStatusFor(cond), c.Reason, msg) {
			r.event(ctx, "Warning", c.Reason, "Reconcile", "%s: %s", cond, msg)
		}
		logFrom(ctx).Info("terminal error, not retrying until the object changes", "condition", cond, "reason", c.Reason, "error", msg)
		return outcome{}
	case ClassRefused:
		var refused *identity.RefusedError
		errors.As(err, &refused)
		return r.refused(ctx, obj, cond, refused, c.RequeueAfter)
	}
	msg := message(ctx, err)
	if r.mark(ctx, obj, cond, conditionStatusFor(cond), c.Reason, msg) {
		r.event(ctx, "Warning", c.Reason, "Reconcile", "%s: %s", cond, msg)
	}
	return outcome{err: c.Err}
}

// refused records the refusal of an identity in cond and looks at the object again after requeueAfter, or
// when the identity or its Secret changes.
func (r *base) refused(ctx context.Context, obj conditionsObject, cond string, refused *identity.RefusedError, requeueAfter time.Duration) outcome {
	if r.mark(ctx, obj, cond, conditionStatusFor(cond), refused.Reason, refused.Message) {
		r.event(ctx, "Warning", refused.Reason, "Reconcile", "%s", refused.Message)
	}
	logFrom(ctx).Info("identity refused, no cloud call", "condition", cond, "reason", refused.Reason, "message", refused.Message)
	return outcome{requeueAfter: requeueAfter}
}

// conditionStatusFor returns the status that means "not good" for cond.
func conditionStatusFor(cond string) string {
	if cond == conditions.Deleting {
		return "True"
	}
	return "False"
}

// maxMessage bounds the condition messages written from errors.
const maxMessage = 1024

// message returns the message of err for a condition: masked by the reconcile's Redactor first, so that
// no part of a secret is left where the message is cut, then cut to maxMessage.
func message(ctx context.Context, err error) string {
	m := redact.FromContext(ctx).String(err.Error())
	if len(m) > maxMessage {
		m = m[:maxMessage] + "..."
	}
	return m
}
