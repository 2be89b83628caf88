package clusterctl

import (
	"fmt"
	"hash/maphash"
	"path/filepath"
	"slices"
	"strings"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Rule identifiers of the ClusterClass definition checks of CheckFiles (clusterctl's clusterclass-<name>.yaml: a
// ClusterClass and the templates it references, which clusterctl generate cluster adds to a cluster template whose
// Cluster uses the class).
const (
	// RuleClusterClassCount: a ClusterClass definition holds exactly one cluster.x-k8s.io ClusterClass.
	RuleClusterClassCount = "clusterclass.count"
	// RuleClusterClassFileName: a file named clusterclass-*.yaml is named clusterclass-<metadata.name of its
	// ClusterClass>.yaml, the name clusterctl generate cluster looks for.
	RuleClusterClassFileName = "clusterclass.file-name"
	// RuleClusterClassTemplateRef: every template reference of the ClusterClass has the form of its API version
	// (templateRef in v1beta2, ref in v1beta1, each with apiVersion, kind and name) and names a template defined in
	// the same file.
	RuleClusterClassTemplateRef = "clusterclass.template-ref"
	// RuleClusterClassNamespace: the file holds no Namespace: a definition assumes its target namespace exists.
	RuleClusterClassNamespace = "clusterclass.namespace"
	// RuleClusterClassObjectNamespace: no object sets metadata.namespace and no template reference sets a
	// namespace, so that the definition is created in the namespace of the Cluster that uses it.
	RuleClusterClassObjectNamespace = "clusterclass.object-namespace"
	// RuleClusterClassVariables: a ClusterClass definition named clusterclass-<name>.yaml (the release asset
	// clusterctl generate cluster adds) uses no clusterctl variables (${VAR}): the clusterctl contract says such
	// definitions SHOULD NOT have any, since a ClusterClass has its own variables and patches. A file that holds a
	// ClusterClass under another name is no release asset (e.g. one meant for clusterctl generate yaml --from, which
	// substitutes variables), so it is not judged by this rule.
	RuleClusterClassVariables = "clusterclass.variables"
)

// clusterClassFilePrefix starts the name of a ClusterClass definition file.
const clusterClassFilePrefix = "clusterclass-"

// isClusterClass reports whether u is a core Cluster API ClusterClass, of any API version.
func isClusterClass(u *unstructured.Unstructured) bool {
	group, _, _ := strings.Cut(u.GetAPIVersion(), "/")
	return group == contract.GroupName && u.GetKind() == "ClusterClass"
}

// classRefSites are the paths of the template references of a ClusterClass: from the object, and from each item of
// spec.workers.machineDeployments and spec.workers.machinePools.
type classRefSites struct {
	top, machineDeployment, machinePool [][]string
}

// Template references of a cluster.x-k8s.io/v1beta2 ClusterClass: templateRef {apiVersion, kind, name}.
var classRefsV1Beta2 = classRefSites{
	top: [][]string{
		{"spec", "infrastructure", "templateRef"},
		{"spec", "controlPlane", "templateRef"},
		{"spec", "controlPlane", "machineInfrastructure", "templateRef"},
		{"spec", "controlPlane", "healthCheck", "remediation", "templateRef"},
	},
	machineDeployment: [][]string{
		{"bootstrap", "templateRef"},
		{"infrastructure", "templateRef"},
		{"healthCheck", "remediation", "templateRef"},
	},
	machinePool: [][]string{
		{"bootstrap", "templateRef"},
		{"infrastructure", "templateRef"},
	},
}

// Template references of a cluster.x-k8s.io/v1beta1 ClusterClass: ref {apiVersion, kind, name, namespace}.
var classRefsV1Beta1 = classRefSites{
	top: [][]string{
		{"spec", "infrastructure", "ref"},
		{"spec", "controlPlane", "ref"},
		{"spec", "controlPlane", "machineInfrastructure", "ref"},
		{"spec", "controlPlane", "machineHealthCheck", "remediationTemplate"},
	},
	machineDeployment: [][]string{
		{"template", "bootstrap", "ref"},
		{"template", "infrastructure", "ref"},
		{"machineHealthCheck", "remediationTemplate"},
	},
	machinePool: [][]string{
		{"template", "bootstrap", "ref"},
		{"template", "infrastructure", "ref"},
	},
}

// classRef is a template reference found in a ClusterClass.
type classRef struct {
	// path is the field path, e.g. "spec.workers.machineDeployments[0].bootstrap.templateRef".
	path  string
	value any
}

// find returns the references of u at the sites, in order.
func (s classRefSites) find(u *unstructured.Unstructured) []classRef {
	var out []classRef
	at := func(obj map[string]any, prefix string, p []string) {
		if v, found, _ := unstructured.NestedFieldNoCopy(obj, p...); found {
			out = append(out, classRef{path: prefix + strings.Join(p, "."), value: v})
		}
	}
	for _, p := range s.top {
		at(u.Object, "", p)
	}
	for _, list := range []struct {
		name  string
		sites [][]string
	}{{"machineDeployments", s.machineDeployment}, {"machinePools", s.machinePool}} {
		items, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "workers", list.name)
		slice, _ := items.([]any)
		for i, item := range slice {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			for _, p := range list.sites {
				at(m, fmt.Sprintf("spec.workers.%s[%d].", list.name, i), p)
			}
		}
	}
	return out
}

// classFileChecker checks one ClusterClass definition file.
type classFileChecker struct {
	f   *YAMLFile
	out Findings
	// more counts the findings about variables beyond the file's limit, which are not in out.
	more int
}

func (c *classFileChecker) add(d Document, rule, path, format string, args ...any) {
	c.out = append(c.out, finding(d, lint.Violation{Rule: rule, Object: d.ObjectRef(), Path: path, Message: fmt.Sprintf(format, args...)}))
}

// checkClusterClassFile checks a clusterclass-*.yaml file, or a file that Classify placed as one by its content (its
// name and its variables are then not judged: it is no release asset). It returns the findings and how many more
// findings about variables there are beyond the file's limit.
func checkClusterClassFile(f *YAMLFile) (Findings, int) {
	c := &classFileChecker{f: f}
	var classes []Document
	for _, d := range f.Documents {
		u := d.Object
		if isClusterClass(u) {
			classes = append(classes, d)
		}
		if u.GetKind() == "Namespace" && u.GetAPIVersion() == "v1" {
			c.add(d, RuleClusterClassNamespace, "", "a ClusterClass definition must assume that its target namespace exists: remove the Namespace")
		}
		if ns := u.GetNamespace(); ns != "" {
			c.add(d, RuleClusterClassObjectNamespace, "metadata.namespace",
				"namespace is %q: leave it out, so that clusterctl creates the ClusterClass and its templates in the namespace of the Cluster that uses them", ns)
		}
	}
	if len(classes) == 0 {
		c.out = append(c.out, Finding{File: f.Name, Violation: lint.Violation{Rule: RuleClusterClassCount,
			Message: fmt.Sprintf("no %s ClusterClass in the file: a ClusterClass definition holds exactly one, with the templates it references", contract.GroupName)}})
	}
	for i, d := range classes {
		if i > 0 {
			c.add(d, RuleClusterClassCount, "", "another ClusterClass in the file (the first is %q): a ClusterClass definition holds exactly one, in clusterclass-<name>.yaml",
				classes[0].Object.GetName())
		}
		c.checkRefs(d)
	}
	if ClassifyFile(f.Name) != FileClusterClass {
		return c.out, c.more
	}
	if len(classes) > 0 {
		c.checkFileName(classes[0])
	}
	c.checkVariables()
	return c.out, c.more
}

// checkFileName checks that the file is named after its ClusterClass.
func (c *classFileChecker) checkFileName(d Document) {
	name, base := d.Object.GetName(), filepath.Base(c.f.Name)
	switch want := clusterClassFilePrefix + name + ".yaml"; {
	case name == "":
		c.add(d, RuleClusterClassFileName, "metadata.name", "the ClusterClass has no name: clusterctl generate cluster finds a definition by the file name clusterclass-<name>.yaml")
	case base != want:
		c.add(d, RuleClusterClassFileName, "metadata.name", "file %q does not match the ClusterClass name %q: clusterctl generate cluster looks for %q",
			base, name, want)
	}
}

// checkRefs checks the template references of the ClusterClass of document d.
func (c *classFileChecker) checkRefs(d Document) {
	u := d.Object
	own, other, form, otherVersion := classRefsV1Beta2, classRefsV1Beta1, "templateRef", "v1beta1"
	_, version, _ := strings.Cut(u.GetAPIVersion(), "/")
	if version == "v1beta1" || strings.HasPrefix(version, "v1alpha") {
		own, other, form, otherVersion = classRefsV1Beta1, classRefsV1Beta2, "ref", "v1beta2"
	}
	for _, r := range other.find(u) {
		c.add(d, RuleClusterClassTemplateRef, r.path, "this is the %s/%s form: a %s ClusterClass references templates with %s {apiVersion, kind, name}",
			contract.GroupName, otherVersion, u.GetAPIVersion(), form)
	}
	for _, r := range own.find(u) {
		c.checkRef(d, r)
	}
}

// checkRef checks one template reference: its fields, no namespace, and a template of the file that it names.
func (c *classFileChecker) checkRef(d Document, r classRef) {
	m, ok := r.value.(map[string]any)
	if !ok {
		c.add(d, RuleClusterClassTemplateRef, r.path, "the reference is %s, want a map of apiVersion, kind and name", describeValue(r.value))
		return
	}
	if ns, _ := m["namespace"].(string); ns != "" {
		c.add(d, RuleClusterClassObjectNamespace, r.path+".namespace",
			"the reference names namespace %q: leave it out, so that the templates are found in the namespace of the ClusterClass", ns)
	}
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	name, _ := m["name"].(string)
	var missing []string
	for _, f := range []struct{ key, value string }{{"apiVersion", apiVersion}, {"kind", kind}, {"name", name}} {
		if f.value == "" {
			missing = append(missing, f.key)
		}
	}
	if len(missing) > 0 {
		c.add(d, RuleClusterClassTemplateRef, r.path, "the reference has no %s: it needs apiVersion, kind and name", strings.Join(missing, ", "))
	}
	if kind == "" || name == "" {
		return
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	anyGroup := err != nil || apiVersion == "" // already reported or invalid: match on kind and name only
	var groups []string
	for _, t := range c.f.Documents {
		if t.Object.GetKind() != kind || t.Object.GetName() != name {
			continue
		}
		group := t.Object.GroupVersionKind().Group
		if anyGroup || gv.Group == group {
			return
		}
		groups = append(groups, group)
	}
	if len(groups) > 0 {
		c.add(d, RuleClusterClassTemplateRef, r.path, "the reference names %s/%s in group %q, but the file's %s/%s is in group %q",
			kind, name, gv.Group, kind, name, strings.Join(groups, ", "))
		return
	}
	c.add(d, RuleClusterClassTemplateRef, r.path, "the reference names %s/%s, which is not in the file: a ClusterClass definition holds every template its ClusterClass references",
		kind, name)
}

// checkVariables reports every field (value or key) that uses clusterctl variables, and variables found outside any
// field, e.g. in comments, which clusterctl reads too.
func (c *classFileChecker) checkVariables() {
	limit := findingsLimit(c.f)
	// The names used in fields, by hash: hostile input can hold millions.
	seed, inFields := maphash.MakeSeed(), map[uint64]struct{}{}
	addName := func(name string) bool {
		inFields[maphash.String(seed, name)] = struct{}{}
		return true
	}
	for _, d := range c.f.Documents {
		walkStrings(d.Object.Object, "", func(path, s string) {
			if !strings.Contains(s, "${") {
				return
			}
			sc := scanVariables([]byte(s), scanLimits{maxIssues: 0, maxVars: maxNamesInMessage, filter: addName})
			var names []string
			for _, v := range sc.vars {
				names = append(names, "${"+v.Name+"}")
			}
			if len(sc.moreVars) > 0 {
				names = append(names, fmt.Sprintf("… (%d in all)", len(sc.vars)+len(sc.moreVars)))
			}
			switch {
			case len(names) > 0:
				c.add(d, RuleClusterClassVariables, path, "uses the clusterctl variable %s: a ClusterClass definition should have none; use the ClusterClass's variables and patches (spec.variables, spec.patches)",
					strings.Join(names, ", "))
			case sc.syntaxIssues > 0:
				c.add(d, RuleClusterClassVariables, path, "%q holds a \"${\" that clusterctl cannot parse: it rejects the whole file; a ClusterClass definition should have no clusterctl variables",
					truncate(s, 60))
			}
		})
	}
	outside := scanVariables(c.f.Data, scanLimits{maxIssues: 0, maxVars: limit, filter: func(name string) bool {
		_, in := inFields[maphash.String(seed, name)]
		return !in
	}})
	c.more += len(outside.moreVars)
	for _, v := range outside.vars {
		c.out = append(c.out, Finding{File: c.f.Name, Line: v.Line, Violation: lint.Violation{Rule: RuleClusterClassVariables, Object: objectAt(c.f, v.Line),
			Message: fmt.Sprintf("${%s} outside any field, e.g. in a comment: clusterctl reads variables there too; a ClusterClass definition should have none", v.Name)}})
	}
}

// maxNamesInMessage bounds the variable names one message lists.
const maxNamesInMessage = 10

// walkStrings calls fn for every string value and every map key of v, with its field path ("spec.a[0].b"; a key
// with a dot or a slash is written in brackets, as in "metadata.labels[example.io/x]"), in a fixed order.
func walkStrings(v any, path string, fn func(path, s string)) {
	switch t := v.(type) {
	case string:
		fn(path, t)
	case []any:
		for i, item := range t {
			walkStrings(item, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := path + "." + k
			switch {
			case strings.ContainsAny(k, "./"):
				p = path + "[" + k + "]"
			case path == "":
				p = k
			}
			fn(p, k)
			walkStrings(t[k], p, fn)
		}
	}
}
