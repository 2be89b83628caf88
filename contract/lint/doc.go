// Package lint checks a provider against the Cluster API provider contract. It checks its Go API types, its
// CustomResourceDefinitions and its live objects. It reads fields at the paths of package contract, with the same
// contract versions, so the checks and the accessors agree. The checks of clusterctl release files (metadata.yaml,
// *-components.yaml, cluster templates, ClusterClass definitions) are in package release/clusterctl, which runs
// CheckCRD on every CRD it reads.
//
// Import it in tests and tools, not in a provider's manager: it is what CI, the "capkit check" command and
// providertest's conformance checks run. A manager needs only package contract (accessors, discovery, API
// types), and does not link this package unless it imports it.
//
// # Violations
//
// Every checker returns Violations: a list of Violation{Rule, Object, Path, Message}, with stable rule ids,
// one-line messages that say what to do, and never any Secret data. An empty list means the subject follows
// the contract; Violations.Err turns a list into an error that wraps ErrViolations.
//
// # Checkers
//
//   - CheckType checks a Go API type before any CRD is generated, in a plain unit test of the provider's API
//     package:
//     require.Empty(t, lint.CheckType(&MemCluster{}, lint.KindInfraCluster, contract.V1Beta2)).
//     It finds a type still in the v1beta1 shape under a v1beta2 label and says so.
//   - CheckCRD checks a CustomResourceDefinition: namespaced, list kind, name, status subresource, contract
//     labels naming served API versions, and each labelled version's schema against the contract fields (WithRole
//     names the role when RoleOf cannot infer it from the group and kind).
//
// # The v1beta1 to v1beta2 migration
//
// Each mistake a provider makes when it moves to contract v1beta2 gets exactly one violation, whose message
// names the CRD or type, the API version, the field path and the fix:
//
//   - the label declares v1beta2 but a labelled version has no status.initialization.provisioned: the field
//     rule (e.g. "inframachine.provisioned"), or RuleCRDContractShape when the status is still in the v1beta1
//     shape (only the label changed), listing every field to add;
//   - without a conversion webhook, the storage version lacks a contract field that a labelled version has, so
//     the API server prunes it from every stored object: RuleCRDStorageVersionFields. With a webhook the
//     storage version may hold the field at another path (status.ready), so only the webhook's round-trip tests
//     can tell;
//   - metadata.yaml maps the newest release series to a contract the CRDs do not declare: package
//     release/clusterctl's "metadata.crd-contract";
//   - a label names an API version the CRD does not have or does not serve: RuleCRDContractLabelVersion;
//   - a Go type's SetProvisioned writes status.ready, not status.initialization.provisioned (or panics on a new
//     object): RuleGoTypeSetProvisioned, from CheckType; a type without the field gets the field rule.
//   - CheckInfraCluster, CheckInfraMachine, CheckInfraMachinePool and CheckBootstrapConfig check live objects:
//     shapes for the contract version, endpoint and providerID set when provisioned, addresses and conditions
//     valid.
//   - CheckBootstrapSecret checks a bootstrap data Secret against its bootstrap config.
//
// Names, kinds and paths come from the input: Violation.String prints a violation on one line of printable text,
// quoting (QuoteName) a name that is not printable and escaping (EscapeText) such characters in a message, so that
// an object named "x\x1b[2J\nfake.yaml:1: all good" can neither clear a terminal nor forge a line.
//
// All checkers share one table of contract fields, Rules(kind, version), so they agree with each other and
// with the accessors of package contract.
package lint
