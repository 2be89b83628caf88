// Package metrics defines the Prometheus metrics capkit records for every provider. They are on controller-runtime's
// registry, served by the manager's metrics endpoint:
//
//	capkit_cloud_calls_total{resource, operation, outcome}    cloud calls made by ensure.Exists, ensure.Deleted and
//	                                                         ensure.Call; outcome is ok, not_found, throttled or error
//	capkit_cloud_call_duration_seconds{resource, operation}   their latency
//	capkit_ensure_actions_total{resource, action}            what Ensure and EnsureDeleted did: found, adopted,
//	                                                         created, updated, deleted
//	capkit_ratelimit_wait_seconds                            time spent waiting for the rate limiter
//	capkit_reconcile_throttled_total{kind}                   reconciles that ended throttled (requeued, not failed)
//
// Labels have low cardinality: resource is the kind of cloud resource (ensure.Kinded, else the Ensure key),
// operation one of get, find, create, update, delete and poll (the read of a create operation, ensure.OperationPoller),
// or what a provider passes to ensure.Call for a call of its own; no object or cluster names.
package metrics
