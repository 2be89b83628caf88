package ratelimit_test

import (
	"context"
	"fmt"

	"github.com/capkit/capkit/ratelimit"
)

// One bucket per cloud account: a burst of 2 calls goes at once, an account of its own is not slowed by
// another's.
func ExampleLimiters_Wait() {
	l, _ := ratelimit.New(10, 2)
	ctx := context.Background()
	for range 2 {
		waited, _ := l.Wait(ctx, "team-blue")
		fmt.Println("team-blue waited", waited.Round(100_000_000))
	}
	waited, _ := l.Wait(ctx, "team-red")
	fmt.Println("team-red waited", waited.Round(100_000_000))
	// Output:
	// team-blue waited 0s
	// team-blue waited 0s
	// team-red waited 0s
}
