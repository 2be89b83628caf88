package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Outcomes of a cloud call.
const (
	OutcomeOK        = "ok"
	OutcomeNotFound  = "not_found"
	OutcomeThrottled = "throttled"
	OutcomeError     = "error"
)

var (
	// CloudCalls counts cloud calls by resource kind, operation and outcome.
	CloudCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "capkit_cloud_calls_total",
		Help: "Cloud calls made through capkit's ensure (Exists, Deleted, Call), by resource kind, operation and outcome.",
	}, []string{"resource", "operation", "outcome"})

	// CloudCallDuration is the latency of cloud calls by resource kind and operation.
	CloudCallDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "capkit_cloud_call_duration_seconds",
		Help:    "Latency of the cloud calls made through capkit's ensure (Exists, Deleted, Call).",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 8), // 1ms to 16s
	}, []string{"resource", "operation"})

	// EnsureActions counts what Ensure and EnsureDeleted did, by resource kind and action.
	EnsureActions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "capkit_ensure_actions_total",
		Help: "What capkit's Ensure and EnsureDeleted did to cloud resources: found, adopted, created, updated, deleted.",
	}, []string{"resource", "action"})

	// RateLimitWait is the time spent waiting for the rate limiter before cloud calls.
	RateLimitWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "capkit_ratelimit_wait_seconds",
		Help:    "Time capkit's cloud calls waited for the rate limiter.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 8),
	})

	// ReconcileThrottled counts reconciles that ended because the cloud throttled them, by infra kind.
	ReconcileThrottled = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "capkit_reconcile_throttled_total",
		Help: "Reconciles that the cloud throttled: requeued after the cloud's hint, not counted as errors.",
	}, []string{"kind"})
)

func init() {
	crmetrics.Registry.MustRegister(CloudCalls, CloudCallDuration, EnsureActions, RateLimitWait, ReconcileThrottled)
}

// ObserveCall records one cloud call.
func ObserveCall(resource, operation, outcome string, d time.Duration) {
	CloudCalls.WithLabelValues(resource, operation, outcome).Inc()
	CloudCallDuration.WithLabelValues(resource, operation).Observe(d.Seconds())
}

// ObserveWait records a wait for the rate limiter.
func ObserveWait(d time.Duration) { RateLimitWait.Observe(d.Seconds()) }
