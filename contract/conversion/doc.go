// Package conversion helps a provider move its API types from the v1beta1 to the v1beta2 Cluster API contract. It
// converts the fields whose shape changed, keeps what one version cannot hold in an annotation until the object comes
// back, and writes both provisioned flags for a release that serves both contracts. It does not import
// sigs.k8s.io/cluster-api. Package conversiontest checks a provider's conversions with random objects.
//
// # Shapes
//
//   - spec.providerID: a *string in v1beta1, a string in v1beta2 (ProviderIDToV1Beta2, ProviderIDToV1Beta1;
//     "" is nil).
//   - The provisioned flag: status.ready, a bool, becomes status.initialization.provisioned, a *bool
//     (ReadyToProvisioned, ProvisionedToReady).
//   - InfraCluster status.failureDomains: a map of V1Beta1FailureDomain keyed by name becomes a list of
//     contract.FailureDomain sorted by name (FailureDomainsToV1Beta2, FailureDomainsToV1Beta1).
//   - Conditions: V1Beta1Condition, Cluster API's v1beta1 shape with a severity, becomes metav1.Condition, with
//     an observedGeneration and a required CamelCase reason (ConditionsToV1Beta2, ConditionsToV1Beta1). A
//     missing or invalid v1beta1 reason becomes NoReasonReported; a False condition without a known severity
//     becomes SeverityInfo.
//
// Each conversion that loses something returns it (a *bool, a FailureDomainsStash, a ConditionsStash), and the
// opposite conversion takes it back, so spoke → hub → spoke and hub → spoke → hub give the object they started
// from.
//
// # Stash
//
// Stash writes the spec and metadata fields the target version cannot hold, as JSON, in the annotation
// StashAnnotation of the converted object, and StashStatus the status fields, in StatusStashAnnotation (each at
// most MaxStashSize bytes; nothing when nothing was lost); Restore and RestoreStatus read them back and remove
// them. A spoke's ConvertTo and ConvertFrom both copy the metadata, restore what the source stashed, convert,
// and stash what they lost; see the package's internal/testapi/v1beta1 for a whole FooMachine and FooCluster.
//
// A missing annotation is not an error, and neither is a bad one (too large, or not the JSON of the value): it
// is removed, the conversion goes on without it, and the converted object reports it in BadStashAnnotation or
// BadStatusStashAnnotation. A conversion that failed would fail every object of the LIST it is part of.
//
// Anyone who may write an object's main resource may write its annotations, and a conversion request does not
// say whether it serves a write to the main resource or to the status subresource. The API server resets the
// status of a write to the main resource in the version of the request, before it converts the object to the
// storage version, and drops the status of a create the same way: so a status stash written with the main
// resource would set, in the hub, the status the API server meant to keep. KeepStatus closes that: called first
// by the hub's defaulting webhook (registered for the hub version, so that the API server converts requests of
// every version to it, and with failurePolicy Fail), it puts back the stored status and status stash on an
// update of the main resource and drops both on a create. A provider that stashes status must call it (the
// KeepStatus field of contract/admission's Webhook does);
// spec fields restored from a stash meet the validating webhook like any others.
//
// # Serving both contracts
//
// A provider whose CRD labels cluster.x-k8s.io/v1beta1 and cluster.x-k8s.io/v1beta2 name the same API version
// keeps status.ready and status.initialization (a contract.InfraMachineInitialization) in one status, and
// writes its own IsProvisioned and SetProvisioned over them; `capkit generate accessors` then generates the
// other accessors and leaves these two alone:
//
//	// IsProvisioned reports whether status.ready or status.initialization.provisioned is true.
//	func (m *FooMachine) IsProvisioned() bool {
//		return conversion.IsDualProvisioned(m.Status.Ready, &m.Status.Initialization)
//	}
//
//	// SetProvisioned sets status.ready and status.initialization.provisioned.
//	func (m *FooMachine) SetProvisioned(v bool) {
//		conversion.SetDualProvisioned(&m.Status.Ready, &m.Status.Initialization, v)
//	}
//
// Failure domains cannot be served both ways from one version: the two contracts put a map and a list at the
// same path.
//
// # Storage
//
// Once a release stores the new version, objects written before stay in the old one until something rewrites
// them. MigrateStorage rewrites every object of a CRD in its storage version and then sets
// status.storedVersions to it alone, after which the API server lets a later release drop the old version.
package conversion
