package servicetest_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
)

// A case states what the reconciler will do with the service's call: its Outcome's Class, Reason and
// RequeueAfter are those reconcile.Classify gives the Result and the error. A service reports "not done
// yet" with a Result; an error it returns is throttled, terminal, refused or transient.
func Example_outcomes() {
	for _, call := range []struct {
		res step.Result
		err error
	}{
		{res: step.Result{Done: true}},
		{res: step.Result{Reason: "InstanceBooting", RequeueAfter: 5 * time.Second}},
		{err: step.Throttled(errors.New("429 Too Many Requests"), 2*time.Second)},
		{err: step.Terminal("QuotaExceeded", errors.New("quota of 10 instances reached"))},
		{err: errors.New("connection reset")},
	} {
		c := reconcile.Classify(reconcile.OpReconcile, call.res, call.err)
		fmt.Printf("%s %s %v %t\n", c.Class, c.Reason, c.RequeueAfter, c.Err != nil)
	}
	// Output:
	// Done Ready 0s false
	// InProgress InstanceBooting 5s false
	// Throttled Throttled 2s false
	// Terminal QuotaExceeded 0s false
	// Transient TransientError 0s true
}
