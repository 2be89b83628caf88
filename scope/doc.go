// Package scope gives a Cluster API infrastructure provider's services everything they need for one
// reconcile of an InfraCluster or InfraMachine, so that they only call their cloud.
//
// # Scopes
//
// ClusterScope[T] and MachineScope[T] are generic over the provider's own types. NewClusterScope takes the
// InfraCluster and its owner Cluster, NewMachineScope the InfraMachine, its Machine and Cluster; the core
// objects are *unstructured.Unstructured of cluster.x-k8s.io v1beta1 or v1beta2, so the provider's module
// does not need to import Cluster API. Their facts are decoded once, into ClusterInfo and MachineInfo.
// Constructors check their arguments and return errors wrapping ErrInvalidInput; they never panic.
//
// # Contract fields: typed access
//
// A provider type reaches its contract fields through the accessor interfaces of package contract, whose
// one-line methods over its own fields `capkit generate accessors` writes (zz_generated.accessors.go; a method
// the provider declares itself is not generated): conditions.Setter and contract.ProvisionedAccessor
// always, contract.ControlPlaneEndpointAccessor for an InfraCluster, contract.ProviderIDAccessor for an
// InfraMachine, and, where the type has the field, contract.FailureDomainsAccessor,
// contract.AddressesAccessor, contract.StatusFailureDomainAccessor and ResourceIDsAccessor. A setter is a
// field write: nothing is converted, and maps and slices the provider holds stay the object's, except the
// field the setter itself replaces. The required accessors are the type constraints of the constructors
// (contract.InfraClusterObject, contract.InfraMachineObject, contract.InfraMachinePoolObject): a type that
// lacks one does not compile, and the compiler names the method. A setter of an optional one returns
// ErrFieldNotInType, naming the interface and the contract path. Getters of required fields cannot fail.
//
// An *unstructured.Unstructured infra object (a v1beta1 provider, tests), given to NewUnstructuredClusterScope,
// NewUnstructuredMachineScope or NewUnstructuredMachinePoolScope, is read and written at the paths of
// its contract version, from the cluster.x-k8s.io/<contract> label of its CRD or WithContractVersion
// (contract.Unstructured); the constructor validates every contract field it holds.
//
// # What services see
//
// Services depend on ClusterScoper[T] or MachineScoper[T]: typed (InfraCluster() T, InfraMachine() T: no
// downcast), narrow (the ResourceTracker, the owners' facts, the bootstrap data), and without lifecycle
// methods. The reconciler owns the concrete scope and calls SetSummaryConditions, HasChanges and Close.
// scopetest.FakeClusterScope and scopetest.FakeMachineScope are state-backed doubles for service tests;
// package mocks has go.uber.org/mock mocks of the same interfaces.
//
// # Ownership key
//
// Every infra object gets a random key in the label OwnershipKeyLabel, generated once and written in the
// patch that adds the finalizer. Labels survive clusterctl move, unlike metadata.uid, so the key is the
// identity for cloud tags and idempotency tokens. OwnershipKey refuses to return a key that is not yet
// persisted. The InfraMachine has its own key: its cloud resources belong to it, not to the cluster.
//
// # Resource IDs
//
// ResourceID, SetResourceID and DeleteResourceID keep key → cloud ID in the object's resource-ID map
// (ResourceIDsAccessor; status.resources of an unstructured object unless WithResourcesPath says otherwise).
// Status is rebuildable: ensure.Exists finds lost IDs again by ownership tags.
//
// # Pending notes
//
// The scopes are PendingTrackers: Pending, SetPending and ClearPending keep a short note per resource key
// about work in flight (a create the cloud may still run, an operation's handle) in the annotation
// PendingAnnotationPrefix + key. A note is at most MaxPendingNote bytes of UTF-8 without control characters
// (ValidatePendingNote). Annotations are metadata, so PatchSpecNow persists a note as PatchNow does, and
// clusterctl move carries it where it does not carry status. ProviderIDTracker passes notes on to the tracker
// it wraps when that one keeps them.
//
// # Patching
//
// The scope patches through package patch: PatchNow sends a JSON merge patch of metadata and spec, then one
// of status through the status subresource, and nothing when nothing changed. Patches that change
// conditions, finalizers or the ownership key carry the resourceVersion; on a conflict they are re-applied
// on a fresh read. Errors name the object ("cannot patch FooMachine ns/name: ..."). Close writes the Ready
// summary and patches.
//
// PatchSpecNow (the SpecPatcher interface; PatchSpec for any Patcher) sends metadata and spec only and keeps
// status for the next patch: a one-write checkpoint when what must survive a crash is in spec.
// ProviderIDTracker uses it to keep a machine's VM ID in spec.providerID, so that provisioning a machine costs
// three writes: finalizer and ownership key, spec.providerID, status at Close.
//
// # Bootstrap data
//
// BootstrapData returns the value and format of the Machine's bootstrap Secret, with
// ErrBootstrapDataNotReady, ErrBootstrapDataNotFound or ErrBootstrapDataMalformed; the data never appears
// in an error, and the scope never logs. The Secret is read with a context whose logger discards everything
// (redact.QuietContext), since client-go logs response bodies through the context's logger.
//
// # Secrets in messages
//
// With WithRedactor (capkit's reconcilers pass the Redactor of each reconcile), the bootstrap data the scope
// reads is registered with that Redactor (and with the one of the context, redact.FromContext), and every
// condition message is masked before each patch (PatchNow, Close), the Ready summary included: a cloud error
// that echoes the user data never reaches status. See package redact for what is masked.
package scope
