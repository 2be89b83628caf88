package identity

import "github.com/capkit/capkit/conditions"

// Deprecated forms of the refusal reasons that moved from identity to conditions before v0.1.0 (every reason
// capkit writes is in conditions), brought back in v0.2.0 for code written against an earlier commit and kept
// for v0.2.x. "go fix ./..." (Go 1.26) rewrites their uses to the conditions names.

// ReasonIdentityRefMissing is the reason of a refusal when the InfraCluster names no identity and the
// provider requires one.
//
// Deprecated: use conditions.ReasonIdentityRefMissing.
//
//go:fix inline
const ReasonIdentityRefMissing = conditions.ReasonIdentityRefMissing

// ReasonIdentityNotFound is the reason of a refusal when the identity does not exist or is of another kind.
//
// Deprecated: use conditions.ReasonIdentityNotFound.
//
//go:fix inline
const ReasonIdentityNotFound = conditions.ReasonIdentityNotFound

// ReasonNamespaceNotAllowed is the reason of a refusal when the identity's allowedNamespaces does not allow
// the cluster's namespace.
//
// Deprecated: use conditions.ReasonNamespaceNotAllowed.
//
//go:fix inline
const ReasonNamespaceNotAllowed = conditions.ReasonNamespaceNotAllowed

// ReasonSecretNotFound is the reason of a refusal when the identity's credentials Secret does not exist.
//
// Deprecated: use conditions.ReasonCredentialsSecretNotFound.
//
//go:fix inline
const ReasonSecretNotFound = conditions.ReasonCredentialsSecretNotFound

// ReasonSecretInvalid is the reason of a refusal when the credentials Secret lacks a required key or has an
// empty one.
//
// Deprecated: use conditions.ReasonCredentialsSecretInvalid.
//
//go:fix inline
const ReasonSecretInvalid = conditions.ReasonCredentialsSecretInvalid
