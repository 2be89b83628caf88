package step_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/capkit/capkit/reconcile/step"
)

// A service marks what retrying cannot fix as terminal, and a cloud's rate-limit refusal as throttled; the
// reconciler reads the class through any wrapping.
func ExampleTerminal() {
	bad := fmt.Errorf("cannot create instance: %w", step.Terminal("InvalidImage", errors.New(`image "x" does not exist`)))
	slow := fmt.Errorf("cannot create instance: %w", step.Throttled(errors.New("429 Too Many Requests"), 2*time.Second))
	fmt.Println(step.IsTerminal(bad), step.TerminalReason(bad))
	fmt.Println(step.IsThrottled(slow), step.IsTerminal(slow))
	// Output:
	// true InvalidImage
	// true false
}
