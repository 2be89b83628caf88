// Package lint checks a provider against the Cluster API provider contract: its Go API types, its
// CustomResourceDefinitions, its live objects and its clusterctl release files. It reads fields at the paths of
// package contract, with the same contract versions, so the checks and the accessors agree.
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
//   - CheckCRD checks a CustomResourceDefinition: namespaced, list kind, status subresource, contract labels
//     naming served API versions, and each labelled version's schema against the contract fields (WithRole
//     names the role when RoleOf cannot infer it from the group and kind).
//   - CheckInfraCluster, CheckInfraMachine and CheckBootstrapConfig check live objects: shapes for the
//     contract version, endpoint and providerID set when provisioned, addresses and conditions valid.
//   - CheckBootstrapSecret checks a bootstrap data Secret against its bootstrap config.
//   - CheckFiles checks clusterctl release files (metadata.yaml, *-components.yaml, cluster-template*.yaml,
//     clusterclass-<name>.yaml) and the CRDs among them, and returns Findings with file and line. CheckMetadata
//     and ScanVariables check one metadata object and the ${VAR} references of one file.
//
// Besides running CheckCRD, CheckFiles checks every CRD it reads (in a components file, in config/crd/bases,
// anywhere) against clusterctl move: a cluster-scoped kind that plays no contract role (e.g. an identity) needs the
// clusterctl.cluster.x-k8s.io/move or move-hierarchy label (RuleCRDMoveLabel), or clusterctl move leaves its
// objects behind. A ClusterClass definition, recognised by its name clusterclass-<name>.yaml or by a
// cluster.x-k8s.io ClusterClass in it, must hold exactly one ClusterClass (named as the file says, when the name
// placed it), every template the ClusterClass references (templateRef in v1beta2, ref in v1beta1; kind and name,
// in the same group), no namespace on any object or reference, no Namespace and no ${VAR} (the RuleClusterClass*
// rules).
//
// ReadYAML and ReadYAMLFile read multi-document YAML with the line of each document, for CheckFiles and for
// messages that point into a file:
//
//	f, err := lint.ReadYAMLFile("out/infrastructure-components.yaml")
//	if err != nil {
//		return err // names the file; ErrMalformed and ErrTooLarge errors name the line and the bound too
//	}
//	findings, err := lint.CheckFiles(f)
//	if err != nil {
//		return err
//	}
//	for _, fd := range findings {
//		fmt.Println(fd) // "file:line: kind/name: rule: path: message", as capkit check prints it
//	}
//
// # Hostile input
//
// ReadYAML reads input that may come from anyone, and refuses it, before decoding it, with an error that wraps
// ErrTooLarge and names the file, the line where there is one, and the bound:
//
//   - bytes read: 32 MiB (DefaultMaxYAMLBytes, WithMaxBytes), read no further than the limit; ReadYAMLFile refuses
//     a larger file by its size, and anything but a regular file (a named pipe would block) before reading it;
//   - bytes of values after YAML aliases are expanded: the size limit unless WithMaxExpandedBytes says otherwise,
//     counted on the parsed tree with each anchor counted once, so a 1 MiB string referenced 3,000 times is refused
//     at the alias that crosses the bound instead of growing to gigabytes;
//   - YAML nodes after aliases are expanded: 1,000,000 (DefaultMaxYAMLNodes, WithMaxNodes), also bounded before
//     parsing by the file's lines and indicators, since decoding costs memory per node;
//   - documents: 10,000 (DefaultMaxYAMLDocuments, WithMaxDocuments), the items of Lists included.
//
// CheckFiles lists at most 100 findings per file (DefaultMaxFindings, WithMaxFindings), then one finding of rule
// RuleMoreFindings that counts the rest; Findings.Count counts them all. The items of a List document (kind List,
// or a kind ending in List, with items) are read as documents of their own, so a CRD inside a List is checked.
//
// Names, kinds, paths and file names come from the input: Violation.String, Finding.String, Unclassified.String and
// PositionError.Error print each on one line of printable text, quoting (strconv.Quote) a name that is not
// printable and escaping such characters in a message, so that an object named "x\x1b[2J\nfake.yaml:1: all good"
// can neither clear a terminal nor forge a line.
//
// All checkers share one table of contract fields, Rules(kind, version), so they agree with each other and
// with the accessors of package contract.
package lint
