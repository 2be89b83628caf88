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
//   - contract/components: builds a provider's infrastructure-components.yaml from controller-gen's output,
//     without kustomize.
//   - contract/conversion: conversion helpers between a provider's v1beta1- and v1beta2-contract API versions
//     (provider ID, provisioned flag, conditions, failure domains, a stash for what the other version cannot
//     hold); contract/conversion/conversiontest: a round-trip test of hub and spokes.
//   - contract/webhook: the defaulting and validating admission webhook of a provider's API type, from its
//     spec functions, with Cluster API's template rule (immutable, except in the topology controller's dry-runs).
//   - conditions: metav1.Condition helpers (set, mark, sort, summarise into Ready, Paused).
//   - scope: ClusterScope, MachineScope and MachinePoolScope, generic over the provider's own types,
//     constrained by the type contract of each kind (contract.InfraMachineObject, …), which reach contract
//     fields through small accessor interfaces (no reflection). The move-safe ownership key, bootstrap
//     data, the resource-ID map, PatchNow checkpoints and Close. Services see only the narrow, typed
//     ClusterScoper[T] and MachineScoper[T]; scope/scopetest has state-backed fakes of them.
//   - patch: the patch helper under the scopes, usable alone (no-op detection, guarded lists, conflict
//     re-apply, status and spec patched separately).
//   - reconcile: the generic reconcilers a provider plugs its services into, ordered steps with
//     conditions, one flow-control model (Classify: done, in progress, throttled, terminal, refused,
//     transient), the per-reconcile Env (events, rate limit, poll interval), and Ensure, the idempotent
//     lifecycle of one cloud resource.
//   - reconcile/kubeobjects: Kubernetes objects (Pods, Secrets, Services) as such resources, for providers
//     whose cloud is a Kubernetes API.
//   - reconcile/manager: a provider's whole cmd/manager: the standard flags, the reconcile options they
//     make, the manager's start-up and health checks.
//   - reconcile/capacity: the controller that keeps an InfraMachineTemplate's status.capacity and
//     status.nodeInfo (contract.MachineTemplateCapacity) up to date, for autoscaling from zero.
//   - identity: the cloud credentials of a workload cluster from an identity object, for multi-tenant
//     providers.
//   - ratelimit, metrics: a token bucket per cloud account shared by a manager's reconcilers, and the
//     Prometheus metrics of every cloud call, Ensure action and rate-limit wait.
//   - redact: keeps secrets (bootstrap data, credentials) out of conditions, events, logs and errors.
//   - cloudinit: cloud-config to a safe bash script or argv commands, every module handled or rejected
//     by name.
//   - mocks: go.uber.org/mock mocks of the narrow scope interfaces and of reconcile's.
//   - providertest: the harness providers run in their own CI: testenv (envtest with CAPI CRDs),
//     servicetest (service cases on the fake scopes), ensuretest (standard idempotency scenarios),
//     lifecycle (a whole cluster with a leak check), scaletest (machine pool scaling scenarios), contract
//     conformance and object builders.
//   - cmd/capkit: capkit init (a new provider repository whose tests pass), capkit check (CRDs and
//     clusterctl files), capkit render (cloud-config to bash) and capkit generate accessors (the contract
//     accessor methods of a provider's API types); cmd/kubebuilder-capkit: capkit init's scaffold as a
//     Kubebuilder external plugin.
//   - examples/memcloud: a whole provider on an in-memory cloud, with a demo (make demo);
//     examples/podcloud: machines as Pods on a Kubernetes API (make demo-pods).
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
//  2. Services: for each cloud resource, build a reconcile.Resource from functions (reconcile.NewResource:
//     validate, get, find by tags, create with an idempotency token, delete; optionally pending states and
//     in-place updates) and call
//     reconcile.Ensure from a step. Ensure records the cloud ID in status and persists it at once, so a
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
