// Package clusterctl checks a provider's clusterctl release files. They are metadata.yaml, *-components.yaml,
// cluster-template*.yaml, clusterclass-<name>.yaml and the CRDs among them, which it reads as hostile input, within
// bounds, with the file and line of each object.
//
// It is what "capkit check" and a provider's release CI run; package release/components reads controller-gen's files
// with the same YAML reader. Before v0.2.0 it was package contract/clusterctl, which now forwards here. The provider contract itself (Go types, CRDs, live objects) is checked by package contract/lint:
// CheckFiles runs lint.CheckCRD on every CRD it reads, and each Finding carries a lint.Violation.
//
// # Checking release files
//
// CheckFiles checks clusterctl release files and the CRDs among them, and returns Findings with file and line.
// Classify says which kind of release file a file is (by its name, then its content), FindUnclassified lists what
// CheckFiles could not place and so did not check, and CheckMetadata and ScanVariables check one metadata object
// and the ${VAR} references of one file.
//
// Besides running lint.CheckCRD, CheckFiles checks every CRD it reads (in a components file, in config/crd/bases,
// anywhere) against clusterctl move: a cluster-scoped kind that plays no contract role (e.g. an identity) needs the
// clusterctl.cluster.x-k8s.io/move or move-hierarchy label (RuleCRDMoveLabel), or clusterctl move leaves its
// objects behind. A ClusterClass definition, recognised by its name clusterclass-<name>.yaml or by a
// cluster.x-k8s.io ClusterClass in it, must hold exactly one ClusterClass (named as the file says, when the name
// placed it), every template the ClusterClass references (templateRef in v1beta2, ref in v1beta1; kind and name,
// in the same group), no namespace on any object or reference, no Namespace and, when the file is the release asset
// clusterclass-<name>.yaml, no ${VAR} (the RuleClusterClass* rules).
//
// # Levels and sources
//
// Rules lists every rule with its Level (LevelError for a MUST of the contract or what clusterctl refuses,
// LevelWarning for a SHOULD, LevelNote for advice) and the contract page or clusterctl package it enforces. CRDs as
// controller-gen writes them, none of which carries a cluster.x-k8s.io/<contract> label, are not judged by their
// contract and move labels (kustomize adds those): FindUnclassified lists them once as not checked.
//
// ReadYAML and ReadYAMLFile read multi-document YAML with the line of each document, for CheckFiles and for
// messages that point into a file (ExampleReadYAMLFile):
//
//	f, err := clusterctl.ReadYAMLFile(path)
//	if err != nil {
//		return err // names the file; ErrMalformed and ErrTooLarge errors name the line and the bound too
//	}
//	findings, err := clusterctl.CheckFiles(f)
//	if err != nil {
//		return err
//	}
//	for _, fd := range findings {
//		fmt.Println(fd) // "file:line: level: kind/name: rule: path: message", as capkit check prints it
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
// Names, kinds, paths and file names come from the input: Finding.String, Unclassified.String and
// PositionError.Error print each on one line of printable text, as lint.Violation.String does: a name that is not
// printable is quoted (strconv.Quote) and such characters in a message escaped, so that an object named
// "x\x1b[2J\nfake.yaml:1: all good" can neither clear a terminal nor forge a line.
package clusterctl
