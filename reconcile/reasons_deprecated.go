package reconcile

import "github.com/capkit/capkit/conditions"

// Deprecated forms of the condition reasons that moved from reconcile to conditions before v0.1.0 (every
// reason capkit writes is in conditions), brought back in v0.2.0 for code written against an earlier commit
// and kept for v0.2.x. "go fix ./..." (Go 1.26) rewrites their uses to the conditions names.

// ReasonTransientError is the reason of a step condition after an error that is retried with backoff.
//
// Deprecated: use conditions.ReasonTransientError.
//
//go:fix inline
const ReasonTransientError = conditions.ReasonTransientError

// ReasonTerminalError is the reason of a step condition after a terminal error that gave no reason of its
// own.
//
// Deprecated: use conditions.ReasonTerminalError.
//
//go:fix inline
const ReasonTerminalError = conditions.ReasonTerminalError

// ReasonInvalidParameters is the reason of the terminal error Ensure returns when it rejects the parameters
// of a cloud call.
//
// Deprecated: use conditions.ReasonInvalidParameters.
//
//go:fix inline
const ReasonInvalidParameters = conditions.ReasonInvalidParameters

// ReasonInProgress is the reason of a step condition while the step is not done yet.
//
// Deprecated: use conditions.ReasonInProgress.
//
//go:fix inline
const ReasonInProgress = conditions.ReasonInProgress

// ReasonReady is the reason of a step condition once its step is done.
//
// Deprecated: use conditions.ReasonReady.
//
//go:fix inline
const ReasonReady = conditions.ReasonReady

// ReasonDeleting is the reason of a step condition while its resources are being deleted.
//
// Deprecated: use conditions.ReasonDeleting.
//
//go:fix inline
const ReasonDeleting = conditions.ReasonDeleting

// ReasonWaitingForClusterInfrastructure is the reason of a machine's first step condition while the
// Cluster's infrastructure is not provisioned.
//
// Deprecated: use conditions.ReasonWaitingForClusterInfrastructure.
//
//go:fix inline
const ReasonWaitingForClusterInfrastructure = conditions.ReasonWaitingForClusterInfrastructure

// ReasonWaitingForBootstrapData is the reason of a machine's first step condition while the Machine has no
// bootstrap data secret.
//
// Deprecated: use conditions.ReasonWaitingForBootstrapData.
//
//go:fix inline
const ReasonWaitingForBootstrapData = conditions.ReasonWaitingForBootstrapData

// ReasonThrottled is the reason of a step condition while the cloud throttles the provider's calls.
//
// Deprecated: use conditions.ReasonThrottled.
//
//go:fix inline
const ReasonThrottled = conditions.ReasonThrottled

// ReasonResourceAdopted is the reason of the event Ensure emits when it adopts a resource by its tags.
//
// Deprecated: use conditions.ReasonResourceAdopted.
//
//go:fix inline
const ReasonResourceAdopted = conditions.ReasonResourceAdopted

// ReasonResourcePending is the reason of Ensure's Result while the cloud is creating, changing or deleting
// the resource.
//
// Deprecated: use conditions.ReasonResourcePending.
//
//go:fix inline
const ReasonResourcePending = conditions.ReasonResourcePending

// ReasonDriftCorrected is the reason of Ensure's Result after the resource was updated in place to match its
// spec.
//
// Deprecated: use conditions.ReasonDriftCorrected.
//
//go:fix inline
const ReasonDriftCorrected = conditions.ReasonDriftCorrected

// ReasonNeedsReplacement is the reason of Ensure's Result when the resource differs from its spec in a way it
// cannot be updated in place.
//
// Deprecated: use conditions.ReasonNeedsReplacement.
//
//go:fix inline
const ReasonNeedsReplacement = conditions.ReasonNeedsReplacement

// ReasonResourceDeleted is the reason of the terminal error Ensure returns with CreateOnce when the resource
// it recorded was deleted outside the controller.
//
// Deprecated: use conditions.ReasonResourceDeleted.
//
//go:fix inline
const ReasonResourceDeleted = conditions.ReasonResourceDeleted
