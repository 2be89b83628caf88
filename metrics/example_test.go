package metrics_test

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/capkit/capkit/metrics"
)

// Ensure and EnsureDeleted record every cloud call; a provider's other calls can be recorded the same way.
func ExampleObserveCall() {
	metrics.ObserveCall("dns-record", "create", metrics.OutcomeOK, 120*time.Millisecond)
	fmt.Println(testutil.ToFloat64(metrics.CloudCalls.WithLabelValues("dns-record", "create", "ok")))
	// Output: 1
}
