// Package capkit is a toolkit for writing Cluster API (CAPI) infrastructure providers. It gives a provider
// team, once and tested against a real kube-apiserver, the code every provider otherwise copies from
// another: scopes, patching, finalizers, resource-ID bookkeeping, contract fields, cloud-init conversion
// and test set-up.
//
// # The packages
//
// The Packages table of the repository's README.md is the list of capkit's packages, each with its one job; the
// first sentence of each package's documentation says the same.
//
// # Writing a provider
//
// A provider defines its API types by embedding the contract types (contract.APIEndpoint,
// contract.InfraClusterInitialization, …) and lets `capkit generate accessors` write the contract's accessor
// methods, writes services that call its cloud through a narrow, typed scope interface, and
// registers them with the generic reconcilers:
//
//  1. Types: embed the contract types, generate the accessors (a type that lacks one does not compile when
//     given to a reconciler); assert the shapes in a unit test with lint.CheckType.
//  2. Services: for each cloud resource, build a ensure.Resource from functions (reconcile.NewResource:
//     validate, get, find by tags, create with an idempotency token, delete; optionally pending states and
//     in-place updates) and call
//     ensure.Exists from a step. Ensure records the cloud ID in status and persists it at once, so a
//     crash never yields a second resource, and returns the resource as observed, read once.
//  3. Controllers: build a reconcile.ClusterReconciler and a reconcile.MachineReconciler with the steps, and
//     run them with reconcile/manager's Main; they fetch, wait for owners, honour pause, persist the finalizer before any cloud call, and set
//     the contract fields and the Ready summary.
//  4. Tests: unit-test services on scopetest's fake scopes with providertest/servicetest; run
//     providertest on envtest; run
//     `capkit check ./config` on the CRDs and clusterctl files.
//
// See examples/memcloud for all four steps in a working provider, and README.md for a short sketch.
package capkit
