package reconcile_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/capkit/capkit/identity"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
)

// Classify says what the reconcilers do with each call of a step's service: the class, the reason of the
// condition they write, when they look again, and whether controller-runtime gets the error.
func ExampleClassify() {
	for _, call := range []struct {
		res step.Result
		err error
	}{
		{res: step.Result{Done: true}},
		{res: step.Result{Reason: "InstanceBooting", RequeueAfter: 5 * time.Second}},
		{err: fmt.Errorf("cannot create instance: %w", step.Throttled(errors.New("429"), 2*time.Second))},
		{err: step.Terminal("QuotaExceeded", errors.New("quota of 10 instances reached"))},
		{err: &identity.RefusedError{Reason: "NamespaceNotAllowed", Message: "namespace \"ns\" is not allowed"}},
		{err: errors.New("connection reset")},
	} {
		c := reconcile.Classify(reconcile.OpReconcile, call.res, call.err)
		fmt.Printf("%-10s %-19s requeue=%-4v error returned=%t\n", c.Class, c.Reason, c.RequeueAfter, c.Err != nil)
	}
	fmt.Println(reconcile.Classify(reconcile.OpDelete, step.Result{Reason: "InstanceStopping"}, nil).Reason)
	// Output:
	// Done       Ready               requeue=0s   error returned=false
	// InProgress InstanceBooting     requeue=5s   error returned=false
	// Throttled  Throttled           requeue=2s   error returned=false
	// Terminal   QuotaExceeded       requeue=0s   error returned=false
	// Refused    NamespaceNotAllowed requeue=1m0s error returned=false
	// Transient  TransientError      requeue=0s   error returned=true
	// Deleting
}
