// Package ratelimit keeps a provider's cloud calls under its cloud's rate limits. It keeps a token bucket per cloud
// account or endpoint (a key), shared by every reconciler of a manager. reconcile.WithRateLimiter gives a Limiters to
// the environment of each reconcile (step.Env), and ensure.Exists and EnsureDeleted wait on it before every
// cloud call they make; a provider's other calls wait with step.EnvFrom(ctx).Wait. The key of a reconcile is the
// name of the cluster's identity when the reconciler uses identities (reconcile.WithIdentities), else "" (one bucket).
package ratelimit
