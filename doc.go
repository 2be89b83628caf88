// Package capkit is a toolkit for writing Cluster API (CAPI) infrastructure providers. It gives a provider
// team, once and tested against a real kube-apiserver, the code every provider otherwise copies from
// another: scopes, patching, finalizers, resource-ID bookkeeping, contract fields, cloud-init conversion
// and test set-up.
//
// # The packages
//
//   - contract: the CAPI provider contract as data. Typed field accessors on unstructured objects for
//     both contract versions (v1beta1, v1beta2), embeddable API types with the right JSON shapes, and
//     contract-version discovery from CRD labels. This is what a provider's manager imports.
//   - contract/lint: checkers of the provider contract for live objects, CRDs and Go types, for tests and CI;
//     a manager does not import it.
//   - contract/clusterctl: the checks of clusterctl release files (metadata, components, cluster templates,
//     ClusterClass definitions and their CRDs) and their bounded YAML reader, also as the command `capkit check`.
//   - contract/webhook: the defaulting and validating admission webhook of a provider's API type, from its
//     spec functions, with Cluster API's template rule (immutable, except in the topology controller's dry-runs).
//   - conditions: metav1.Condition helpers (set, mark, sort, summarise into Ready, Paused).
//   - scope: ClusterScope and MachineScope, generic over the provider's own types, which reach contract
//     fields through small accessor interfaces (no reflection). The move-safe ownership key, bootstrap
//     data, the resource-ID map, PatchNow checkpoints and Close. Services see only the narrow, typed
//     ClusterScoper[T] and MachineScoper[T]; scope/scopetest has state-backed fakes of them.
//   - patch: the patch helper under the scopes, usable alone (no-op detection, guarded lists, conflict
//     re-apply, status and spec patched separately).
//   - reconcile: the generic reconcilers a provider plugs its services into, ordered steps with
//     conditions, one flow-control model (Result for "not yet", terminal errors, everything else
//     retried), and Ensure, the idempotent lifecycle of one cloud resource.
//   - reconcile/capacity: the controller that keeps an InfraMachineTemplate's status.capacity and
//     status.nodeInfo (contract.MachineTemplateCapacity) up to date, for autoscaling from zero.
//   - cloudinit: cloud-config to a safe bash script or argv commands, every module handled or rejected
//     by name.
//   - mocks: go.uber.org/mock mocks of the narrow scope interfaces and of reconcile's.
//   - providertest: the harness providers run in their own CI: testenv (envtest with CAPI CRDs),
//     servicetest (service cases on the fake scopes), ensuretest (standard idempotency scenarios),
//     lifecycle (a whole cluster with a leak check), contract conformance and object builders.
//   - examples/memcloud: a whole provider on an in-memory cloud, with a demo (make demo).
//
// # Writing a provider
//
// A provider defines its API types by embedding the contract types (contract.APIEndpoint,
// contract.InfraClusterInitialization, …) and implementing the contract's accessor interfaces with
// one-line methods, writes services that call its cloud through a narrow, typed scope interface, and
// registers them with the generic reconcilers:
//
//  1. Types: embed the contract types, implement the accessors; assert them in a unit test with lint.CheckType.
//  2. Services: for each cloud resource, implement reconcile.Resource (validate, get, find by tags,
//     create with an idempotency token, delete; optionally pending states and in-place updates) and call
//     reconcile.Ensure from a step. Ensure records the cloud ID in status and persists it at once, so a
//     crash never yields a second resource, and returns the resource as observed, read once.
//  3. Controllers: build a reconcile.ClusterReconciler and a reconcile.MachineReconciler with the steps;
//     they fetch, wait for owners, honour pause, persist the finalizer before any cloud call, and set
//     the contract fields and the Ready summary.
//  4. Tests: unit-test services on scopetest's fake scopes with providertest/servicetest; run
//     providertest on envtest; run
//     `capkit check ./config` on the CRDs and clusterctl files.
//
// See examples/memcloud for all four steps in a working provider, and README.md for a short sketch.
package capkit
