package conditions

// Every condition reason capkit writes, in one place: the reasons of this package's helpers, of the
// reconcilers' step conditions (reconcile.Classify says which one a step's result gets), of Ensure's step
// results and events, of ipam.Claimer's step results, and of identity refusals. A provider's own reasons (a
// terminal error's, a step's "not done yet") live with the provider.

// Reasons of the Ready, Paused and Deleting conditions, written by the helpers of this package and by the
// reconcilers.
const (
	// ReasonUnspecified is written when a caller passes an empty reason.
	ReasonUnspecified = "Unspecified"
	// ReasonReady is the reason of Ready=True written by SetSummary, and of a step condition once its step
	// is done.
	ReasonReady = "Ready"
	// ReasonNotReady is the reason of Ready=False written by SetSummary.
	ReasonNotReady = "NotReady"
	// ReasonReadyUnknown is the reason of Ready=Unknown written by SetSummary when a step is Unknown.
	ReasonReadyUnknown = "ReadyUnknown"
	// ReasonStepsNotReported is the reason of Ready=Unknown written by SetSummary when steps are missing.
	ReasonStepsNotReported = "StepsNotReported"
	// ReasonPaused is the reason of Paused=True (CAPI v1beta2 convention).
	ReasonPaused = "Paused"
	// ReasonNotPaused is the reason of Paused=False (CAPI v1beta2 convention).
	ReasonNotPaused = "NotPaused"
	// ReasonDeleting is the reason of Deleting=True (CAPI v1beta2 convention), and of a step condition while
	// its resources are being deleted.
	ReasonDeleting = "Deleting"
	// ReasonNotDeleting is the reason of Deleting=False (CAPI v1beta2 convention).
	ReasonNotDeleting = "NotDeleting"
)

// Reasons of the step conditions the reconcilers write, one per class of a step's outcome (see
// reconcile.Classify).
const (
	// ReasonInProgress is the reason of a step condition while the step is not done yet and its Result
	// gives no reason of its own.
	ReasonInProgress = "InProgress"
	// ReasonTransientError is the reason of a step condition after an error that controller-runtime retries
	// with backoff.
	ReasonTransientError = "TransientError"
	// ReasonTerminalError is the reason of a step condition after a terminal error that gave no reason of
	// its own (controller-runtime's step.TerminalError).
	ReasonTerminalError = "TerminalError"
	// ReasonThrottled is the reason of a step condition while the cloud throttles the provider's calls.
	ReasonThrottled = "Throttled"
	// ReasonWaitingForClusterInfrastructure is the reason of a machine's first step condition while the
	// Cluster's infrastructure is not provisioned.
	ReasonWaitingForClusterInfrastructure = "WaitingForClusterInfrastructure"
	// ReasonWaitingForBootstrapData is the reason of a machine's first step condition while the Machine has
	// no bootstrap data secret.
	ReasonWaitingForBootstrapData = "WaitingForBootstrapData"
)

// Reasons of the step results and terminal errors of ensure.Exists and EnsureDeleted, of the events
// Ensure emits, and of the terminal errors of reconcile/kubeobjects.
const (
	// ReasonInvalidParameters is the reason of the terminal error Ensure returns when it rejects the
	// parameters of a cloud call before making it.
	ReasonInvalidParameters = "InvalidParameters"
	// ReasonResourceAdopted is the reason of the event Ensure emits when it adopts a resource by its tags.
	ReasonResourceAdopted = "ResourceAdopted"
	// ReasonResourcePending is the reason of Ensure's Result while the resource is being created, changed
	// or deleted by the cloud (a Resource that implements ensure.PendingReporter said so); the step
	// looks again after the poll interval.
	ReasonResourcePending = "ResourcePending"
	// ReasonDriftCorrected is the reason of Ensure's Result after the resource differed from its spec and
	// was updated in place; the step reads it again after the poll interval and is ready once it is up to
	// date.
	ReasonDriftCorrected = "DriftCorrected"
	// ReasonNeedsReplacement is the reason of Ensure's Result when the resource differs from its spec in a
	// way it cannot be updated in place; Ensure changes nothing (see ensure.Updater).
	ReasonNeedsReplacement = "NeedsReplacement"
	// ReasonResourceDeleted is the reason of the terminal error Ensure returns with ensure.CreateOnce
	// when the resource it recorded was deleted outside the controller.
	ReasonResourceDeleted = "ResourceDeletedOutOfBand"
	// ReasonNameTaken is the reason of the terminal error kubeobjects' Create returns when an object of the
	// name it must create exists and belongs to another owner.
	ReasonNameTaken = "NameTaken"
)

// Reasons of the step results and terminal errors of ipam.Claimer's Claim and Unclaim.
const (
	// ReasonWaitingForIPAddresses is the reason of Claim's Result while an IPAddressClaim has no address yet
	// (the IPAM provider has not allocated it, or has not bound it again after clusterctl move); the message
	// names the claims and the step looks again after the poll interval.
	ReasonWaitingForIPAddresses = "WaitingForIPAddresses"
	// ReasonReleasingIPAddresses is the reason of Unclaim's Result while an IPAddressClaim is still being
	// deleted (the IPAM provider keeps it until it has released the address); the message names the claims
	// and the step looks again after the poll interval.
	ReasonReleasingIPAddresses = "ReleasingIPAddresses"
	// ReasonInvalidIPAddress is the reason of the terminal error Claim and Unclaim return when the addresses
	// cannot be used: a bad request, owner or cluster name, or an IPAddress that is malformed (an address,
	// prefix or gateway that does not parse) or that the claim's address cannot be (another claim's or
	// pool's).
	ReasonInvalidIPAddress = "InvalidIPAddress"
)

// Reasons of an identity refusal (identity.RefusedError), written into the IdentityReady condition.
const (
	// ReasonIdentityRefMissing is written when the InfraCluster names no identity and the provider requires
	// one.
	ReasonIdentityRefMissing = "IdentityRefMissing"
	// ReasonIdentityNotFound is written when the identity does not exist or is of another kind.
	ReasonIdentityNotFound = "IdentityNotFound"
	// ReasonNamespaceNotAllowed is written when the identity's allowedNamespaces does not allow the
	// cluster's namespace.
	ReasonNamespaceNotAllowed = "NamespaceNotAllowed"
	// ReasonCredentialsSecretNotFound is written when the identity's credentials Secret does not exist.
	ReasonCredentialsSecretNotFound = "CredentialsSecretNotFound"
	// ReasonCredentialsSecretInvalid is written when the credentials Secret lacks a required key or has an
	// empty one.
	ReasonCredentialsSecretInvalid = "CredentialsSecretInvalid"
)
