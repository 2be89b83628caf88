package ensuretest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/capkit/capkit/scope/scopetest"
)

func ExampleTracker() {
	ctx := context.Background()
	tr := scopetest.NewTracker("owner-1")
	_ = tr.SetResourceID("network", "net-1")
	tr.FailNextPatch(errors.New("controller killed"))
	fmt.Println(tr.PatchNow(ctx))
	fmt.Println(tr.Restart().IDs(), tr.Moved().IDs())
	// Output:
	// controller killed
	// map[] map[]
}
