// Package scope gives a Cluster API infrastructure provider's services everything they need for one
// reconcile of an InfraCluster or InfraMachine, so that they only call their cloud.
//
// # Scopes
//
// ClusterScope[T] and MachineScope[T] are generic over the provider's own types. NewClusterScope takes the
// InfraCluster and its owner Cluster, NewMachineScope the InfraMachine, its Machine and Cluster; the core
// objects are *unstructured.Unstructured of cluster.x-k8s.io v1beta1 or v1beta2, so the provider's module
// does not need to import Cluster API. Constructors check their arguments and return errors wrapping
// ErrInvalidInput; they never panic.
//
// # Contract fields
//
// Getters and setters write every contract field at the path of the contract version in use (from the
// cluster.x-k8s.io/<contract> label of the provider's CRD, or WithContractVersion): SetProvisioned writes
// status.initialization.provisioned (v1beta2) or status.ready (v1beta1), SetFailureDomains a list or a map,
// Conditions the status.conditions or status.v1beta2.conditions. A provider type that lacks a field its
// contract needs is refused with ErrFieldNotInType and the field's path, never silently dropped.
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
// ResourceID, SetResourceID and DeleteResourceID keep key → cloud ID in status.resources (a
// map[string]string; WithResourcesPath moves it). Status is rebuildable: reconcile.Ensure finds lost IDs
// again by ownership tags.
//
// # Patching
//
// The scope snapshots the object when it is created and after every patch. PatchNow sends a JSON merge
// patch of metadata and spec, then one of status through the status subresource, and nothing when nothing
// changed. Patches that change conditions, finalizers or the ownership key carry the resourceVersion; on a
// conflict the scope re-reads the object, re-applies only what it changed and retries. Errors name the
// object ("cannot patch FooMachine ns/name: ..."). Close writes the Ready summary and patches.
//
// PatchSpecNow (the SpecPatcher interface; PatchSpec for any Patcher) sends metadata and spec only and keeps
// status for the next patch: a one-write checkpoint when what must survive a crash is in spec.
// ProviderIDTracker uses it to keep a machine's VM ID in spec.providerID, so that provisioning a machine costs
// three writes: finalizer and ownership key, spec.providerID, status at Close.
//
// # Bootstrap data
//
// MachineScope.BootstrapData returns the value and format of the Machine's bootstrap Secret, with
// ErrBootstrapDataNotReady, ErrBootstrapDataNotFound or ErrBootstrapDataMalformed; the data never appears
// in an error, and the scope never logs.
//
// # Testing provider services
//
// Services should depend on the narrow interfaces (ClusterScoper, MachineScoper, ResourceTracker, ...):
// the mocks package has go.uber.org/mock mocks of them, and scopetest.CountingClient counts API writes.
package scope
