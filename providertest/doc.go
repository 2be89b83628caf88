// Package providertest is the test harness a Cluster API infrastructure provider runs in its own CI. It
// gives, at every level of the test pyramid, the tests every provider writes again by hand. It does not
// import sigs.k8s.io/cluster-api: core objects are unstructured, in either core API version.
//
// # Map of the harness
//
//   - providertest (this package): builders of core objects, assertions on contract fields and
//     conditions, and contract conformance of CRDs, Go types and live objects.
//   - providertest/testenv: a real API server (envtest) with the provider's CRDs and the Cluster API CRDs,
//     started once per test package by testenv.Main.
//   - providertest/servicetest: table-driven tests of a provider's services on the state-backed fake scopes
//     of scope/scopetest (RunMachineCases, RunClusterCases).
//   - providertest/ensuretest: the scenarios in which providers duplicate or leak a cloud resource, run
//     against the provider's ensure.Resource (RunScenarios), and Tracker, a scope.ResourceTracker that
//     models crashes and clusterctl move.
//   - providertest/lifecycle: a whole cluster created, provisioned and deleted against the running provider,
//     with a leak check (lifecycle.Run, Driver, LeakChecker), Cluster API's part played by the driver when
//     its controllers are not running (Spec.PlayCAPI).
//
// # Builders
//
// NewCluster, NewMachine and NewBootstrapSecret build core objects in either core API version (e.g.
// spec.infrastructureRef as {apiGroup, kind, name} in v1beta2 and {apiVersion, kind, name, namespace} in
// v1beta1).
//
// # Assertions
//
// AssertCondition, AssertProvisioned, EventuallyProvisioned and EventuallyCondition read contract fields at
// the path of the version in use and print the object's conditions when they fail; CheckProvisioned
// returns the same as an error. Every assertion takes a TestingT and returns whether it passed,
// testify-style.
//
// # Contract conformance
//
// AssertCRDConformance checks generated CRDs, AssertTypeConformance the Go API types before any CRD is
// generated, AssertObjectConformance a reconciled object, AssertBootstrapSecretConformance a bootstrap
// Secret; each lists every violation of the contract on its own line of the test output.
// AssertTemplateAcceptsTopologyDryRun sends a template kind's webhooks, on envtest, the server-side-apply
// dry-runs of Cluster API's topology controller, which no file shows, and fails quoting the contract when they
// are refused.
package providertest
