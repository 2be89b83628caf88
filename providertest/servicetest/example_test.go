package servicetest_test

import (
	"errors"
	"fmt"

	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
)

// A service reports "not done yet" with a reconcile.Result; an error it returns is either terminal or
// retried with backoff, and a case states which with Outcome.Error.
func ExampleClassOf() {
	for _, err := range []error{
		nil,
		reconcile.Terminal("QuotaExceeded", errors.New("quota of 10 instances reached")),
		errors.New("connection reset"),
	} {
		fmt.Println(servicetest.ClassOf(err))
	}
	// Output:
	// NoError
	// Terminal
	// Retried
}
