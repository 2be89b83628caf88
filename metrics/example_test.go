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
	// The latency goes into a histogram with one series per resource kind and operation.
	fmt.Println(testutil.CollectAndCount(metrics.CloudCallDuration, "capkit_cloud_call_duration_seconds"))
	// Output:
	// 1
	// 1
}

// The rate limiter of a reconcile records each wait before a cloud call.
func ExampleObserveWait() {
	metrics.ObserveWait(30 * time.Millisecond)
	fmt.Println(testutil.CollectAndCount(metrics.RateLimitWait, "capkit_ratelimit_wait_seconds"))
	// Output: 1
}
