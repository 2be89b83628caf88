package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/redact"
)

// Result is what a service reports after one attempt to reconcile or delete its part of the infrastructure.
type Result struct {
	// Done reports that the step reached its desired state (Reconcile) or that all its cloud resources are
	// gone (Delete). When true the step condition becomes True (Reconcile) and the next step runs. When
	// false the reconciler stops at this step, writes the step condition False with Reason and Message,
	// and requeues after RequeueAfter (DefaultRequeueAfter when zero).
	Done bool
	// RequeueAfter is when to reconcile again. With Done it asks for a periodic re-check (the shortest of
	// all steps wins); without Done it overrides DefaultRequeueAfter.
	RequeueAfter time.Duration
	// Reason is the CamelCase reason of the step condition while not Done (ReasonInProgress when empty).
	Reason string
	// Message is the message of the step condition while not Done; never put secrets in it.
	Message string
}

// DefaultRequeueAfter is how long the reconciler waits before checking a step that is not Done again.
const DefaultRequeueAfter = 10 * time.Second

// Service is one part of a provider's infrastructure (a network, a load balancer, a VM), reconciled through
// the scope interface S its reconciler gives: scope.ClusterScoper[*MyCluster] or scope.MachineScoper[*MyMachine].
// Reconcile and Delete report "not done yet" with a Result whose Done is false, never with an error; an
// error is either terminal (Terminal, controller-runtime's reconcile.TerminalError) or retried with backoff.
type Service[S any] interface {
	// Reconcile moves the cloud towards the desired state; it must be idempotent (use Ensure).
	Reconcile(ctx context.Context, s S) (Result, error)
	// Delete deletes the service's cloud resources; it reports Done once they are gone.
	Delete(ctx context.Context, s S) (Result, error)
}

// ServiceFuncs adapts functions to Service; a nil function reports Done.
type ServiceFuncs[S any] struct {
	// ReconcileFunc implements Reconcile.
	ReconcileFunc func(ctx context.Context, s S) (Result, error)
	// DeleteFunc implements Delete.
	DeleteFunc func(ctx context.Context, s S) (Result, error)
}

// Reconcile calls ReconcileFunc, or reports Done when it is nil.
func (f ServiceFuncs[S]) Reconcile(ctx context.Context, s S) (Result, error) {
	if f.ReconcileFunc == nil {
		return Result{Done: true}, nil
	}
	return f.ReconcileFunc(ctx, s)
}

// Delete calls DeleteFunc, or reports Done when it is nil.
func (f ServiceFuncs[S]) Delete(ctx context.Context, s S) (Result, error) {
	if f.DeleteFunc == nil {
		return Result{Done: true}, nil
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

// runSteps reconciles the steps in order and records each step's condition.
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
		if err != nil {
			return r.stepFailed(ctx, obj, cond, err)
		}
		if !res.Done {
			reason := res.Reason
			if reason == "" {
				reason = ReasonInProgress
			}
			r.mark(ctx, obj, cond, "False", reason, res.Message)
			after := res.RequeueAfter
			if after <= 0 {
				after = r.defaultRequeue
			}
			return outcome{requeueAfter: after}
		}
		// A step that becomes ready is visible in its condition; no event repeats it (one API request per
		// object at scale). Events are for what conditions do not say: what Ensure created, adopted or
		// updated, and errors.
		r.mark(ctx, obj, cond, "True", ReasonReady, "")
		if res.RequeueAfter > 0 && (periodic == 0 || res.RequeueAfter < periodic) {
			periodic = res.RequeueAfter
		}
	}
	return outcome{done: true, requeueAfter: periodic}
}

// deleteSteps deletes the steps in reverse order; it reports done when every step is.
func (r *base) deleteSteps(ctx context.Context, obj conditionsObject, steps []stepRunner) outcome {
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		res, err := st.delete(ctx)
		if err != nil {
			return r.stepFailed(ctx, obj, conditions.Deleting, err)
		}
		if !res.Done {
			msg := st.name + " is being deleted"
			if res.Message != "" {
				msg = st.name + ": " + res.Message
			}
			r.mark(ctx, obj, conditions.Deleting, "True", ReasonDeleting, msg)
			after := res.RequeueAfter
			if after <= 0 {
				after = r.defaultRequeue
			}
			return outcome{requeueAfter: after}
		}
		r.mark(ctx, obj, st.conditionType, "False", ReasonDeleting, "")
	}
	return outcome{done: true}
}

// stepFailed records err in cond according to its class: terminal (no retry until the object changes) or
// anything else (returned to controller-runtime, which retries with backoff).
func (r *base) stepFailed(ctx context.Context, obj conditionsObject, cond string, err error) outcome {
	if hint, ok := IsThrottled(err); ok {
		return r.stepThrottled(ctx, obj, cond, hint, err)
	}
	if IsTerminal(err) {
		reason, msg := TerminalReason(err), terminalMessage(ctx, err)
		if r.mark(ctx, obj, cond, conditionStatusFor(cond), reason, msg) {
			r.event(ctx, "Warning", reason, "Reconcile", "%s: %s", cond, msg)
		}
		logFrom(ctx).Info("terminal error, not retrying until the object changes", "condition", cond, "reason", reason, "error", msg)
		return outcome{}
	}
	msg := message(ctx, err)
	if r.mark(ctx, obj, cond, conditionStatusFor(cond), ReasonTransientError, msg) {
		r.event(ctx, "Warning", ReasonTransientError, "Reconcile", "%s: %s", cond, msg)
	}
	return outcome{err: err}
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
