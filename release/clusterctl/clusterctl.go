package clusterctl

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/contract/lint"
)

// FileKind says which clusterctl release file a YAML file is, from its name.
type FileKind string

// File kinds. CRDs are checked in every kind of file.
const (
	// FileMetadata is metadata.yaml.
	FileMetadata FileKind = "metadata"
	// FileComponents is <type>-components.yaml, e.g. infrastructure-components.yaml.
	FileComponents FileKind = "components"
	// FileClusterTemplate is cluster-template.yaml or cluster-template-<flavor>.yaml.
	FileClusterTemplate FileKind = "cluster-template"
	// FileClusterClass is a ClusterClass definition, clusterclass-<ClusterClass name>.yaml: the ClusterClass and
	// every template it references.
	FileClusterClass FileKind = "clusterclass"
	// FileOther is any other YAML file, e.g. a CRD from config/crd/bases.
	FileOther FileKind = "other"
)

// ClassifyFile returns the kind of a clusterctl release file from its base name.
func ClassifyFile(name string) FileKind {
	base := filepath.Base(name)
	ext := filepath.Ext(base)
	if ext != ".yaml" && ext != ".yml" {
		return FileOther
	}
	stem := strings.TrimSuffix(base, ext)
	switch {
	case stem == "metadata":
		return FileMetadata
	case strings.HasSuffix(stem, "-components") || stem == "components":
		return FileComponents
	case stem == "cluster-template" || strings.HasPrefix(stem, "cluster-template-"):
		return FileClusterTemplate
	case strings.HasPrefix(stem, clusterClassFilePrefix) && len(stem) > len(clusterClassFilePrefix):
		return FileClusterClass
	}
	return FileOther
}

// Finding is a violation found at a place in a file.
type Finding struct {
	// File is the file name.
	File string
	// Line is the 1-based line of the object the violation is about; 0 when it is about the whole file.
	Line int
	lint.Violation
	// Omitted is set on a finding of rule RuleMoreFindings only: the number of the file's findings it stands for,
	// which are not in the list.
	Omitted int
}

// String returns the finding on one line of printable text: "file:line: level: kind/name: rule: path: message"
// (the level of the rule, see LevelOf; the rest as lint.Violation.String; a file name that is not printable is
// quoted), or "file: and N more violations (…)" for a finding of rule RuleMoreFindings.
func (f Finding) String() string {
	pos := lint.QuoteName(f.File)
	if f.Line > 0 {
		pos += ":" + strconv.Itoa(f.Line)
	}
	if f.Rule == RuleMoreFindings {
		return pos + ": " + lint.EscapeText(f.Message)
	}
	return pos + ": " + string(f.Level()) + ": " + f.Violation.String()
}

// Level returns the level of the finding's rule (LevelOf).
func (f Finding) Level() Level { return LevelOf(f.Rule) }

// Findings is a list of findings.
type Findings []Finding

// Sort orders the findings by file, line, object, path, rule and message; a RuleMoreFindings finding comes last of
// its file.
func (fs Findings) Sort() {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), compareBool(a.Rule == RuleMoreFindings, b.Rule == RuleMoreFindings),
			cmp.Compare(a.Line, b.Line), a.Compare(b.Violation))
	})
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Failing returns the number of findings of level error or warning, those a RuleMoreFindings finding counts
// included (they may be of any level): the findings that make capkit check fail.
func (fs Findings) Failing() int {
	n := 0
	for _, f := range fs {
		switch {
		case f.Rule == RuleMoreFindings:
			n += f.Omitted
		case f.Level() != LevelNote:
			n++
		}
	}
	return n
}

// Count returns the number of violations the findings stand for: those in the list and those a RuleMoreFindings
// finding counts.
func (fs Findings) Count() int {
	n := 0
	for _, f := range fs {
		if f.Rule == RuleMoreFindings {
			n += f.Omitted
		} else {
			n++
		}
	}
	return n
}

// Violations returns the findings' violations, without their positions.
func (fs Findings) Violations() lint.Violations {
	out := make(lint.Violations, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Violation)
	}
	return out
}

// Rule identifiers of CheckFiles for CRD documents (see also the RuleCRD* rules of lint.CheckCRD).
const (
	// RuleCRDAPIVersion: CRDs must be apiextensions.k8s.io/v1.
	RuleCRDAPIVersion = "crd.api-version"
)

// Rule identifiers of CheckFiles about a file as a whole.
const (
	// RuleClusterctlList: a clusterctl release file (metadata, components, cluster template, ClusterClass
	// definition) holds no List: clusterctl applies each YAML document as one object and does not expand Lists.
	RuleClusterctlList = "clusterctl.list"
	// RuleMoreFindings is no violation: a finding of this rule ends the findings of a file that has more than its
	// limit (DefaultMaxFindings, WithMaxFindings) and counts the rest in Omitted.
	RuleMoreFindings = "lint.more-findings"
)

// crdEntry is a CRD found in one of the files.
type crdEntry struct {
	doc   Document
	crd   *apiextensionsv1.CustomResourceDefinition
	role  lint.Kind
	known bool
}

// release holds what CheckFiles learned from all files, for the checks that span files.
type release struct {
	crds []crdEntry
	// releaseDirs are the folders that hold a metadata.yaml: each is one release, whose CRDs are its own.
	releaseDirs []string
}

// CheckFiles checks CRDs and clusterctl release files (see Classify, which looks at the name, then the content):
// every CustomResourceDefinition in any file with lint.CheckCRD, and a cluster-scoped one that plays no contract
// role for a clusterctl move label (RuleCRDMoveLabel); metadata.yaml with CheckMetadata, and against the contract
// labels of the CRDs in its folder and below; *-components.yaml (exactly one Namespace, every namespaced object in
// it, the provider label, a Deployment with a container named manager, canonical container images with the default
// variables, cert-manager.io/inject-ca-from values, the conversion of multi-version CRDs, clusterctl variables);
// cluster-template*.yaml (a Cluster whose infrastructureRef names a kind of the provider's CRDs and an object of
// the template, namespaces, variables); clusterclass-*.yaml ClusterClass definitions (one ClusterClass, named as
// the file, every template it references in the file, no namespaces, no Namespace, no variables); and no List in
// any of these (the items of a List are checked as documents of their own, see ReadYAML).
//
// A folder with a metadata.yaml is a release: the CRDs in it and below belong to it, except those below a folder
// with a metadata.yaml of its own (another release, such as config/releases/v0.1.0 under config). The CRDs a
// template is checked against are those of the nearest folder, going up from the template's, that has any. A CRD
// without spec.conversion (as controller-gen writes it, e.g. in config/crd/bases) that a components file of its
// release installs with a conversion webhook is checked with that conversion, which is the one the API server
// gets.
//
// It returns an error wrapping ErrMalformed for a CRD document that cannot be decoded. The findings are sorted; a
// file lists at most its limit of findings (DefaultMaxFindings, WithMaxFindings), and then one finding of rule
// RuleMoreFindings that counts the others (Findings.Count counts them all).
func CheckFiles(files ...*YAMLFile) (Findings, error) {
	var out Findings
	rel := release{}
	kinds := make([]FileKind, len(files))
	kindOf := make(map[string]FileKind, len(files))
	for i, f := range files {
		if kinds[i] = Classify(f); kinds[i] == FileMetadata {
			rel.releaseDirs = append(rel.releaseDirs, filepath.Dir(f.Name))
		}
		kindOf[f.Name] = kinds[i]
	}
	for _, f := range files {
		for _, d := range f.Documents {
			if d.Object.GetKind() != "CustomResourceDefinition" {
				continue
			}
			if gv := d.Object.GetAPIVersion(); gv != apiextensionsv1.SchemeGroupVersion.String() {
				out = append(out, finding(d, lint.Violation{Rule: RuleCRDAPIVersion, Object: d.ObjectRef(), Path: "apiVersion",
					Message: fmt.Sprintf("apiVersion is %q, want %q (apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22)", gv, apiextensionsv1.SchemeGroupVersion)}))
				continue
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(d.Object.Object, crd); err != nil {
				return nil, &PositionError{File: d.File, Line: d.Line, Err: fmt.Errorf("%w: cannot decode CustomResourceDefinition %q: %s", ErrMalformed, d.Object.GetName(), err.Error())}
			}
			role, known := lint.RoleOf(crd.Spec.Group, crd.Spec.Names.Kind)
			rel.crds = append(rel.crds, crdEntry{doc: d, crd: crd, role: role, known: known})
		}
	}
	installed := rel.installedConversions(kindOf)
	_, _, unlabelled := unlabelledCRDs(files, kinds)
	for _, e := range rel.crds {
		crd := e.crd
		if conv := rel.installedConversion(e, kindOf, installed); conv != nil {
			crd = crd.DeepCopy()
			crd.Spec.Conversion = conv
		}
		// Unlabelled CRDs outside components files are controller-gen's output: their labels come later.
		labelsLater := unlabelled && kindOf[e.doc.File] != FileComponents
		for _, v := range lint.CheckCRD(crd) {
			if !labelsLater || v.Rule != lint.RuleCRDContractLabel {
				out = append(out, finding(e.doc, v))
			}
		}
		if v, ok := checkMoveLabel(e.doc, e.crd, e.known); !ok && !labelsLater {
			out = append(out, finding(e.doc, v))
		}
	}
	more := map[string]int{} // findings beyond a file's limit, counted where they were not made
	for i, f := range files {
		kind := kinds[i]
		switch kind {
		case FileMetadata:
			out = append(out, rel.checkMetadataFile(f)...)
		case FileComponents:
			out = append(out, rel.checkComponents(f)...)
			out = append(out, rel.checkAggregatedRole(f)...)
			out = append(out, rel.checkConversion(f)...)
			out = append(out, checkIPAMRBAC(f)...)
			vars, n := checkFileVariables(f)
			out, more[f.Name] = append(out, vars...), more[f.Name]+n
		case FileClusterTemplate:
			out = append(out, rel.checkTemplate(f)...)
			vars, n := checkFileVariables(f)
			out, more[f.Name] = append(out, vars...), more[f.Name]+n
		case FileClusterClass:
			class, n := checkClusterClassFile(f)
			out, more[f.Name] = append(out, class...), more[f.Name]+n
			if ClassifyFile(f.Name) != FileClusterClass { // no release asset: its ${VAR}s are clusterctl's, as in a template
				vars, n := checkFileVariables(f)
				out, more[f.Name] = append(out, vars...), more[f.Name]+n
			}
		}
		if kind != FileOther && kind != FileCRDs {
			out = append(out, checkLists(f)...)
		}
	}
	out.Sort()
	return limitFindings(out, files, more), nil
}

// checkLists reports the List documents of a clusterctl release file, once each.
func checkLists(f *YAMLFile) Findings {
	var out Findings
	seen := map[*ListOrigin]bool{}
	for _, d := range f.Documents {
		if d.List == nil || seen[d.List] {
			continue
		}
		seen[d.List] = true
		objects := "objects"
		if d.List.Items == 1 {
			objects = "object"
		}
		out = append(out, Finding{File: f.Name, Line: d.List.Line, Violation: lint.Violation{Rule: RuleClusterctlList,
			Message: fmt.Sprintf("a %s of %d %s: clusterctl applies each YAML document as one object and does not expand Lists; write each item as a document of its own",
				d.List.Kind, d.List.Items, objects)}})
	}
	return out
}

// limitFindings keeps, of the sorted findings, the first ones of each file up to its limit, and ends the findings
// of a file that has more with a RuleMoreFindings finding that counts them (those left out here and the more
// counted elsewhere).
func limitFindings(sorted Findings, files []*YAMLFile, more map[string]int) Findings {
	limits := map[string]int{}
	for _, f := range files {
		if _, ok := limits[f.Name]; !ok {
			limits[f.Name] = findingsLimit(f)
		}
	}
	out := make(Findings, 0, len(sorted))
	for i := 0; i < len(sorted); {
		name := sorted[i].File
		j := i
		for j < len(sorted) && sorted[j].File == name {
			j++
		}
		kept, omitted := sorted[i:j], more[name]
		if limit, ok := limits[name]; ok && limit >= 0 && len(kept) > limit {
			kept, omitted = kept[:limit], omitted+len(kept)-limit
		}
		out = append(out, kept...)
		if omitted > 0 {
			out = append(out, moreFindings(name, omitted, len(kept)))
		}
		delete(more, name)
		i = j
	}
	for _, f := range files { // files whose only findings were counted, not made
		if n := more[f.Name]; n > 0 {
			out = append(out, moreFindings(f.Name, n, 0))
			delete(more, f.Name)
		}
	}
	return out
}

func moreFindings(file string, omitted, listed int) Finding {
	return Finding{File: file, Omitted: omitted, Violation: lint.Violation{Rule: RuleMoreFindings,
		Message: fmt.Sprintf("and %d more violations (only the first %d of a file are listed)", omitted, listed)}}
}

func finding(d Document, v lint.Violation) Finding {
	return Finding{File: d.File, Line: d.Line, Violation: v}
}

// crdsUnder returns the CRDs in files in dir or below, but not those of another release below dir: a folder
// below dir that holds its own metadata.yaml, such as releases/v0.1.0 in a provider's config folder, is an
// older (or another) release, whose CRDs its own metadata.yaml judges.
func (r release) crdsUnder(dir string) []crdEntry {
	var out []crdEntry
	for _, e := range r.crds {
		if within(dir, e.doc.File) && !r.inNestedRelease(dir, e.doc.File) {
			out = append(out, e)
		}
	}
	return out
}

// installedConversions returns, by CRD name, the CRDs of components files that have a conversion webhook.
func (r release) installedConversions(kindOf map[string]FileKind) map[string][]crdEntry {
	out := map[string][]crdEntry{}
	for _, c := range r.crds {
		if conv := c.crd.Spec.Conversion; kindOf[c.doc.File] == FileComponents && conv != nil && conv.Strategy == apiextensionsv1.WebhookConverter {
			out[c.crd.Name] = append(out[c.crd.Name], c)
		}
	}
	return out
}

// installedConversion returns the conversion webhook with which a components file of e's release (one of
// installed, see installedConversions) installs the CRD of e, when e is a CRD without spec.conversion in another
// kind of file, such as controller-gen's config/crd/bases; or nil.
func (r release) installedConversion(e crdEntry, kindOf map[string]FileKind, installed map[string][]crdEntry) *apiextensionsv1.CustomResourceConversion {
	if e.crd.Spec.Conversion != nil || kindOf[e.doc.File] == FileComponents {
		return nil
	}
	for _, c := range installed[e.crd.Name] {
		if dir := filepath.Dir(c.doc.File); within(dir, e.doc.File) && !r.inNestedRelease(dir, e.doc.File) {
			return c.crd.Spec.Conversion
		}
	}
	return nil
}

// inNestedRelease reports whether file is in a release folder below dir (not dir itself).
func (r release) inNestedRelease(dir, file string) bool {
	for _, d := range r.releaseDirs {
		if filepath.Clean(d) != filepath.Clean(dir) && within(dir, filepath.Join(d, "metadata.yaml")) && within(d, file) {
			return true
		}
	}
	return false
}

// nearestCRDs returns the CRDs of the nearest folder, from dir up, that has any in it or below.
func (r release) nearestCRDs(dir string) []crdEntry {
	for {
		if crds := r.crdsUnder(dir); len(crds) > 0 {
			return crds
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return r.crds
		}
		dir = parent
	}
}

// within reports whether file is in dir or one of its subfolders.
func within(dir, file string) bool {
	rel, err := filepath.Rel(dir, filepath.Dir(file))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// objectAt returns the object of the document that contains line, or "".
func objectAt(f *YAMLFile, line int) string {
	obj := ""
	for _, d := range f.Documents {
		if d.StartLine <= line {
			obj = d.ObjectRef()
		}
	}
	return obj
}
