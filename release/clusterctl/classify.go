package clusterctl

import (
	"fmt"
	"strings"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
)

// FileCRDs is a file of CustomResourceDefinitions only, e.g. one of config/crd/bases: checked with lint.CheckCRD.
const FileCRDs FileKind = "crds"

// Unclassified is a file, or a document of a file, that Classify could not place: CheckFiles checked nothing
// in it but its CRDs, so it must not be taken as clean.
type Unclassified struct {
	// File is the file name; Line is the document's line, 0 for the whole file.
	File string
	Line int
	// Reason says what was found instead, starting with "not checked: ".
	Reason string
}

// String returns "file[:line]: reason" on one line of printable text: a file name that is not printable is quoted
// and the reason escaped, as in lint.Violation.String.
func (u Unclassified) String() string {
	if u.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", lint.QuoteName(u.File), u.Line, lint.EscapeText(u.Reason))
	}
	return lint.QuoteName(u.File) + ": " + lint.EscapeText(u.Reason)
}

// Classify returns the kind of a release file: by name first (ClassifyFile), then, for a file whose name says
// nothing, by its content: a clusterctl Metadata document makes it metadata, a core Cluster a cluster template,
// a core ClusterClass (without a Cluster) a ClusterClass definition, a Deployment together with CRDs or a
// Namespace the components, and CRDs alone a CRD file. It returns FileOther for anything else.
func Classify(f *YAMLFile) FileKind {
	if k := ClassifyFile(f.Name); k != FileOther {
		return k
	}
	kinds := map[string]int{}
	for _, d := range f.Documents {
		kinds[docKind(d)]++
	}
	switch {
	case kinds["Metadata"] > 0:
		return FileMetadata
	case kinds["Cluster"] > 0:
		return FileClusterTemplate
	case kinds["ClusterClass"] > 0:
		return FileClusterClass
	case kinds["Deployment"] > 0 && (kinds["CustomResourceDefinition"] > 0 || kinds["Namespace"] > 0):
		return FileComponents
	case len(f.Documents) > 0 && kinds["CustomResourceDefinition"] == len(f.Documents):
		return FileCRDs
	}
	return FileOther
}

// docKind is a document's kind, qualified where the group matters: "Metadata" only for clusterctl's, "Cluster"
// and "ClusterClass" only for Cluster API's core ones.
func docKind(d Document) string {
	group, _, _ := strings.Cut(d.Object.GetAPIVersion(), "/")
	switch kind := d.Object.GetKind(); {
	case kind == "Metadata" && group == "clusterctl.cluster.x-k8s.io":
		return "Metadata"
	case kind == "Metadata", (kind == "Cluster" || kind == "ClusterClass") && group != contract.GroupName:
		return group + "/" + kind
	default:
		return kind
	}
}

// FindUnclassified lists the files Classify cannot place, and the documents of a metadata file that are not its
// Metadata, so that a checker can say what it did not check. When no CRD outside a components file carries a
// cluster.x-k8s.io/<contract> label (controller-gen's output, which providers label in
// config/crd/kustomization.yaml), it also lists, once, the folder that holds them: CheckFiles did not check their
// contract and clusterctl move labels.
func FindUnclassified(files ...*YAMLFile) []Unclassified {
	var out []Unclassified
	kinds := make([]FileKind, len(files))
	for i, f := range files {
		kinds[i] = Classify(f)
	}
	if dir, n, ok := unlabelledCRDs(files, kinds); ok {
		out = append(out, unlabelledNote(dir, n))
	}
	for i, f := range files {
		switch kinds[i] {
		case FileOther:
			reason := "not checked: not a clusterctl metadata, components, cluster template or ClusterClass file, nor CRDs"
			if len(f.Documents) == 0 {
				reason = "not checked: no Kubernetes objects"
			}
			out = append(out, Unclassified{File: f.Name, Reason: reason})
		case FileMetadata:
			for _, d := range f.Documents {
				if docKind(d) != "Metadata" {
					out = append(out, Unclassified{File: f.Name, Line: d.Line,
						Reason: fmt.Sprintf("not checked: %s %s in a metadata file", d.Object.GetAPIVersion(), d.ObjectRef())})
				}
			}
		}
	}
	return out
}
