package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

const testdata = "../../release/clusterctl/testdata"

func check(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runCheck(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestCheckGood(t *testing.T) {
	code, stdout, stderr := check(filepath.Join(testdata, "good"))
	assert.Equal(t, 0, code, stdout+stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, "capkit check: 11 files, 0 violations\n", stderr)
}

func TestCheckGoodThroughMain(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"check", filepath.Join(testdata, "good", "v1beta2")}, &stdout, &stderr))
	assert.Equal(t, "capkit check: 4 files, 0 violations\n", stderr.String())
}

func TestCheckBad(t *testing.T) {
	code, stdout, stderr := check(filepath.Join(testdata, "bad", "release"), filepath.Join(testdata, "bad", "crds", "cluster-scoped.yaml"))
	assert.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	assert.Contains(t, lines, testdata+`/bad/crds/cluster-scoped.yaml:3: error: CustomResourceDefinition/scopedclusters.infrastructure.bad.example.io: crd.scope: spec.scope: scope is "Cluster", want "Namespaced": Cluster API objects and their infrastructure live in a namespace`)
	assert.Contains(t, lines, testdata+`/bad/release/infrastructure-components.yaml:194: error: Deployment/broken-controller: clusterctl.variable-syntax: "${BROKEN_VERSION": no closing } after the variable name "BROKEN_VERSION"; clusterctl rejects the whole file with "bad substitution"`)
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, testdata+"/bad/"), "one violation per line, starting with the file: %q", l)
	}
	notes := 0
	for _, l := range lines {
		if strings.Contains(l, ": note: ") {
			notes++
		}
	}
	assert.Equal(t, "capkit check: 5 files, "+strconv.Itoa(len(lines)-notes)+" violations, "+strconv.Itoa(notes)+" notes\n", stderr)

	again, stdout2, _ := check(filepath.Join(testdata, "bad", "crds", "cluster-scoped.yaml"), filepath.Join(testdata, "bad", "release"))
	assert.Equal(t, 1, again)
	assert.Equal(t, stdout, stdout2, "output does not depend on argument order")
}

func TestCheckLabelShapeMismatchIsNamed(t *testing.T) {
	code, stdout, _ := check(filepath.Join(testdata, "bad", "crds", "v1beta2-label-v1beta1-status.yaml"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "crd.contract-shape: spec.versions[v1alpha1].schema.openAPIV3Schema.properties.status: label declares contract v1beta2 but status has v1beta1 shape: status.ready present, status.failureDomains is a map")
}

// TestCheckMalformed: a file that cannot be read is listed as not checked with the reason and its line, the other
// files are still checked, and the exit code says so (3: no violations, files not checked).
func TestCheckMalformed(t *testing.T) {
	tests := map[string]string{
		"syntax.yaml":        "malformed/syntax.yaml: not checked: malformed YAML at line 12: found unexpected end of stream",
		"list.yaml":          "malformed/list.yaml: not checked: malformed YAML at line 2: document is a YAML list, want a map with apiVersion and kind",
		"no-kind.yaml":       "malformed/no-kind.yaml: not checked: malformed YAML at line 9: document has no kind",
		"crd-bad-types.yaml": `malformed/crd-bad-types.yaml: not checked: malformed YAML at line 1: cannot decode CustomResourceDefinition "memclusters.infrastructure.example.io"`,
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			code, stdout, stderr := check(filepath.Join(testdata, "good"), filepath.Join(testdata, "malformed", file))
			assert.Equal(t, 2, code, stdout+stderr)
			assert.Equal(t, 1, strings.Count(stdout, "\n"), stdout)
			assert.Contains(t, stdout, testdata+"/"+want)
			assert.Equal(t, "capkit check: 12 files, 0 violations, 1 not checked (listed above)\n", stderr, "the good files are still checked")
		})
	}
	code, stdout, stderr := check(filepath.Join(testdata, "malformed"))
	assert.Equal(t, 2, code)
	assert.Equal(t, 6, strings.Count(stdout, ": not checked: malformed YAML at line "), "every unreadable file is listed, a CRD that cannot be decoded too:\n%s", stdout)
	assert.Equal(t, "capkit check: 6 files, 0 violations, 6 not checked (listed above)\n", stderr)

	code, _, _ = check(filepath.Join(testdata, "malformed"), filepath.Join(testdata, "bad", "crds", "cluster-scoped.yaml"))
	assert.Equal(t, 1, code, "violations win over files not checked")
	code, _, _ = check("--strict", filepath.Join(testdata, "malformed", "syntax.yaml"))
	assert.Equal(t, 1, code, "--strict makes a file not checked a violation")
}

func TestCheckUsageAndUnreadable(t *testing.T) {
	code, _, stderr := check()
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "usage: capkit check [--strict] PATH...")

	code, stdout, _ := check("-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout)

	code, _, stderr = check("--bogus")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "flag provided but not defined: -bogus")

	code, _, stderr = check(filepath.Join(testdata, "nope"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `capkit check: cannot read "`+testdata+`/nope": `)

	empty := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(empty, ".hidden"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(empty, ".hidden", "x.yaml"), []byte("apiVersion: v1\nkind: A\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("hello"), 0o644))
	code, _, stderr = check(empty)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "capkit check: no YAML files in")
}

func TestCheckExplicitFileAnyExtensionAndYml(t *testing.T) {
	dir := t.TempDir()
	crd, err := os.ReadFile(filepath.Join(testdata, "bad", "crds", "missing-list-kind.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crd.yml"), crd, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crd.txt"), crd, 0o644))
	code, stdout, stderr := check(dir)
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(stdout, "crd.list-kind"), "only the .yml file is found in the folder")
	assert.Equal(t, "capkit check: 1 file, 1 violation\n", stderr)

	code, stdout, _ = check(filepath.Join(dir, "crd.txt"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "crd.txt:3: ")
}

func TestCheckMachinePoolCRD(t *testing.T) {
	code, stdout, _ := check(filepath.Join(testdata, "bad", "crds", "machinepool-broken.yaml"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "inframachinepool.providerIDList: spec.providerIDList:")
	assert.Contains(t, stdout, "inframachinepool.replicas: status.replicas:")
	assert.Contains(t, stdout, "has status.replicas of type string, want integer")
}

// TestCheckClassifiesByContent: a clusterctl Metadata document in a file not named metadata.yaml is checked
// as metadata, and a file that is no release file is listed as not checked, not counted as clean.
func TestCheckClassifiesByContent(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	meta := write("release-info.yaml", "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 0\n  minor: 1\n  contract: v1alpha4\n")
	other := write("kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n")

	code, stdout, _ := check(meta)
	assert.Equal(t, 1, code, "the misnamed metadata is checked: %s", stdout)
	assert.Contains(t, stdout, "metadata.contract")

	code, stdout, stderr := check(other)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, other+": not checked: a kustomization, which capkit does not build: check what it builds (kubectl kustomize "+dir+" > built.yaml; capkit check built.yaml)")
	assert.Contains(t, stderr, "1 file, 0 violations, 1 not checked")

	role := write("role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n")
	code, stdout, _ = check(role)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, role+": not checked: not a clusterctl metadata, components, cluster template or ClusterClass file, nor CRDs")

	var out, errOut strings.Builder
	assert.Equal(t, 1, runCheck([]string{"--strict", other}, &out, &errOut), "--strict makes it a failure")
}

// TestCheckClusterClass runs "capkit check" on a broken ClusterClass definition and a cluster-scoped CRD without a
// move label: every violation names the file, line, object, rule, field path and value.
func TestCheckClusterClass(t *testing.T) {
	var stdout, stderr bytes.Buffer
	bad := filepath.Join(testdata, "bad", "clusterclass", "clusterclass-mem.yaml")
	crd := filepath.Join(testdata, "bad", "crds", "cluster-scoped-no-move-label.yaml")
	code := run([]string{"check", bad, crd}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Equal(t, []string{
		bad + ":1: warning: clusterclass.variables: ${CLASS_VERSION} outside any field, e.g. in a comment: clusterctl reads variables there too; a ClusterClass definition should have none",
		bad + ":5: error: Namespace/mem-classes: clusterclass.namespace: a ClusterClass definition must assume that its target namespace exists: remove the Namespace",
		bad + `:10: warning: ClusterClass/mem-prod: clusterclass.file-name: metadata.name: file "clusterclass-mem.yaml" does not match the ClusterClass name "mem-prod": clusterctl generate cluster looks for "clusterclass-mem-prod.yaml"`,
		bad + `:10: warning: ClusterClass/mem-prod: clusterclass.object-namespace: metadata.namespace: namespace is "mem-classes": leave it out, so that clusterctl creates the ClusterClass and its templates in the namespace of the Cluster that uses them`,
		bad + ":10: error: ClusterClass/mem-prod: clusterclass.template-ref: spec.controlPlane.machineInfrastructure.ref: this is the cluster.x-k8s.io/v1beta1 form: a cluster.x-k8s.io/v1beta2 ClusterClass references templates with templateRef {apiVersion, kind, name}",
		bad + `:10: warning: ClusterClass/mem-prod: clusterclass.object-namespace: spec.infrastructure.templateRef.namespace: the reference names namespace "mem-classes": leave it out, so that the templates are found in the namespace of the ClusterClass`,
		bad + ":10: error: ClusterClass/mem-prod: clusterclass.template-ref: spec.workers.machineDeployments[0].bootstrap.templateRef: the reference names KubeadmConfigTemplate/mem-prod-default-worker, which is not in the file: a ClusterClass definition holds every template its ClusterClass references",
		bad + `:10: error: ClusterClass/mem-prod: clusterclass.template-ref: spec.workers.machineDeployments[0].infrastructure.templateRef: the reference names MemMachineTemplate/mem-prod-default-worker in group "infrastructure.other.io", but the file's MemMachineTemplate/mem-prod-default-worker is in group "infrastructure.example.io"`,
		bad + ":46: warning: MemClusterTemplate/mem-prod: clusterclass.variables: spec.template.spec.region: uses the clusterctl variable ${MEM_REGION}: a ClusterClass definition should have none; use the ClusterClass's variables and patches (spec.variables, spec.patches)",
		crd + `:4: error: CustomResourceDefinition/memregions.infrastructure.example.io: crd.move-label: metadata.labels: cluster-scoped kind MemRegion has neither the "clusterctl.cluster.x-k8s.io/move" nor the "clusterctl.cluster.x-k8s.io/move-hierarchy" label: ` +
			`no namespaced Cluster can own its objects, so clusterctl move would leave them behind; label the CRD, e.g. with the marker +kubebuilder:metadata:labels="clusterctl.cluster.x-k8s.io/move-hierarchy=" on the type (move-hierarchy moves the objects they own too)`,
	}, strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n"))
	assert.Equal(t, "capkit check: 2 files, 10 violations\n", stderr.String(), "both files are checked, none is listed as not checked")

	// The good definitions beside their components check clean, and are not listed as "not checked".
	code, stdout2, stderr2 := check(filepath.Join(testdata, "good", "v1beta2", "clusterclass-mem.yaml"), filepath.Join(testdata, "good", "v1beta1", "clusterclass-legacy.yaml"))
	assert.Equal(t, 0, code, stdout2)
	assert.Empty(t, stdout2)
	assert.Equal(t, "capkit check: 2 files, 0 violations\n", stderr2)
}

// TestCheckClusterClassByContent: a ClusterClass definition under another name is recognised and checked, but its
// name is not judged.
func TestCheckClusterClassByContent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testdata, "bad", "clusterclass", "clusterclass-mem.yaml"))
	require.NoError(t, err)
	name := filepath.Join(t.TempDir(), "classes.yaml")
	require.NoError(t, os.WriteFile(name, data, 0o644))
	code, stdout, stderr := check(name)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "clusterclass.template-ref")
	assert.NotContains(t, stdout, "clusterclass.file-name")
	assert.NotContains(t, stdout, "clusterclass.variables", "not a clusterclass-<name>.yaml release asset: its ${VAR}s are not judged")
	assert.NotContains(t, stdout, "not checked")
	assert.Equal(t, "capkit check: 1 file, 6 violations\n", stderr)
}

// writeFile writes content to dir/name, creating folders, and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// assertPrintableLines fails unless every line of out is printable text.
func assertPrintableLines(t *testing.T, out string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for _, r := range l {
			if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
				assert.Failf(t, "not a printable line", "%q holds %q", l, r)
				break
			}
		}
	}
}

// badCRD is a CRD with no versions: one crd.invalid violation at its first line.
const badCRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: xclusters.infrastructure.x.io, labels: {cluster.x-k8s.io/v1beta2: v1beta2}}\n" +
	"spec: {group: infrastructure.x.io, names: {kind: XCluster, plural: xclusters, listKind: XClusterList}, scope: Namespaced, versions: []}\n"

// TestCheckRefusesUnboundedInput: an alias bomb, too many documents, too many YAML nodes and too many bytes are each
// refused before they are decoded, listed as not checked with the bound (exit code 3).
func TestCheckRefusesUnboundedInput(t *testing.T) {
	dir := t.TempDir()
	bomb := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  a: &a " + strings.Repeat("x", 1<<20) + "\n  b: [" + strings.Repeat("*a, ", 39) + "*a]\n"
	docs := strings.Repeat("apiVersion: v1\nkind: A\n---\n", int(clusterctl.DefaultMaxYAMLDocuments)+1)
	dense := "apiVersion: v1\nkind: A\nl: [" + strings.Repeat("1,", int(clusterctl.DefaultMaxYAMLNodes/2)) + "1]\n"
	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, nil, 0o644))
	require.NoError(t, os.Truncate(big, clusterctl.DefaultMaxYAMLBytes+1))
	tests := map[string]struct {
		path string
		want string
	}{
		"alias bomb": {writeFile(t, dir, "bomb.yaml", bomb),
			": not checked: YAML input too large at line 6: more than 33554432 bytes of values after YAML aliases are expanded\n"},
		"documents": {writeFile(t, dir, "docs.yaml", docs),
			": not checked: YAML input too large at line 30001: more than 10000 YAML documents\n"},
		"nodes": {writeFile(t, dir, "dense.yaml", dense),
			": not checked: YAML input too large: its 4 lines and 500004 indicators (\"-\", \"?\", \":\", \",\", \"[\", \"{\", \"*\") allow up to 1000012 YAML nodes, more than the limit of 1000000 nodes\n"},
		"bytes": {big, ": not checked: YAML input too large: 33554433 bytes, more than 33554432 bytes\n"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := check(tt.path)
			assert.Equal(t, 2, code)
			assert.Equal(t, tt.path+tt.want, stdout)
			assert.Equal(t, "capkit check: 1 file, 0 violations, 1 not checked (listed above)\n", stderr)
		})
	}
}

// TestCheckEscapesNames: a name or kind with control characters cannot clear the screen or forge a line: every line
// of output is printable, and there is one line per finding.
func TestCheckEscapesNames(t *testing.T) {
	dir := t.TempDir()
	name := writeFile(t, dir, "crd.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: \"x\\e[2J\\nfake.yaml:1: all good\"\n"+
		"spec: {group: a.b, names: {kind: \"K\\e[31m\", plural: ks}, scope: Namespaced, versions: []}\n")
	other := writeFile(t, dir, "other.yaml", "apiVersion: v1\nkind: \"Kind\\e]0;title\\a\"\nmetadata: {name: \"n\\r\"}\n")
	code, stdout, stderr := check(name, other)
	assert.Equal(t, 1, code)
	assert.Equal(t, name+`:1: error: "CustomResourceDefinition/x\x1b[2J\nfake.yaml:1: all good": crd.invalid: spec.versions: the CRD has no versions`+"\n"+
		other+": not checked: not a clusterctl metadata, components, cluster template or ClusterClass file, nor CRDs\n", stdout)
	assertPrintableLines(t, stdout)
	assert.Equal(t, "capkit check: 2 files, 1 violation, 1 not checked (listed above)\n", stderr)

	bad := writeFile(t, dir, "bad\x1b[2J.yaml", "kind: [\n")
	code, stdout, _ = check(bad)
	assert.Equal(t, 2, code)
	assertPrintableLines(t, stdout)
	assert.Contains(t, stdout, `"`+dir+`/bad\x1b[2J.yaml": not checked: malformed YAML at line `)
}

// TestCheckFollowsSymlinkedFolders: a folder reached through a symbolic link is searched (a CRD in it is not silently
// skipped), and a link back to a folder already searched is said, not followed again.
func TestCheckFollowsSymlinkedFolders(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	writeFile(t, base, "elsewhere/config/crd.yaml", badCRD)
	writeFile(t, root, "a.yaml", badCRD)
	require.NoError(t, os.Symlink(filepath.Join(base, "elsewhere", "config"), filepath.Join(root, "config")))
	require.NoError(t, os.Symlink(".", filepath.Join(root, "loop")))
	code, stdout, stderr := check(root)
	assert.Equal(t, 1, code)
	assert.Equal(t, root+"/a.yaml:1: error: CustomResourceDefinition/xclusters.infrastructure.x.io: crd.invalid: spec.versions: the CRD has no versions\n"+
		root+"/config/crd.yaml:1: error: CustomResourceDefinition/xclusters.infrastructure.x.io: crd.invalid: spec.versions: the CRD has no versions\n", stdout)
	assert.Equal(t, "capkit check: 2 files, 2 violations; folders reached again through a link, not searched twice: "+root+"/loop\n", stderr)
}

// TestCheckFindsCRDsInList: a CRD inside a List document of a components file is checked.
func TestCheckFindsCRDsInList(t *testing.T) {
	dir := t.TempDir()
	crd := strings.ReplaceAll(strings.TrimSuffix(badCRD, "\n"), "\n", "\n  ")
	name := writeFile(t, dir, "infrastructure-components.yaml", "apiVersion: v1\nkind: List\nitems:\n- "+crd+"\n")
	code, stdout, _ := check(name)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, name+":4: error: CustomResourceDefinition/xclusters.infrastructure.x.io: crd.invalid: spec.versions: the CRD has no versions\n")
	assert.Contains(t, stdout, name+":1: error: clusterctl.list: a List of 1 object: ")
}

// TestCheckCapsFindingsPerFile: at most 100 findings of a file are listed, then one line counts the rest; the summary
// count and the exit code stay exact.
func TestCheckCapsFindingsPerFile(t *testing.T) {
	name := writeFile(t, t.TempDir(), "infrastructure-components.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n"+strings.Repeat("# ${\n", 150))
	code, stdout, stderr := check(name)
	assert.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 101)
	assert.Equal(t, name+": and 52 more violations (only the first 100 of a file are listed)", lines[100])
	assert.Equal(t, "capkit check: 1 file, 152 violations\n", stderr)
}

// TestCheckReportsSkippedFiles: .YAML and .yml files are checked like .yaml; a hidden folder is not searched but the
// summary says so; an empty tree says what it skipped.
func TestCheckReportsSkippedFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "CRD.YAML", badCRD)
	writeFile(t, dir, "crd.yml", badCRD)
	writeFile(t, dir, ".git/x.yaml", badCRD)
	writeFile(t, dir, ".github/x.yaml", badCRD)
	writeFile(t, dir, "notes.txt", "hello")
	code, stdout, stderr := check(dir)
	assert.Equal(t, 1, code)
	assert.Equal(t, 2, strings.Count(stdout, "crd.invalid"), stdout)
	assert.Contains(t, stdout, dir+"/CRD.YAML:1: ")
	assert.Equal(t, "capkit check: 2 files, 2 violations; hidden folders not searched (name them to check them): "+dir+"/.git, "+dir+"/.github\n", stderr)

	code, stdout, _ = check(filepath.Join(dir, ".git"))
	assert.Equal(t, 1, code, "a hidden folder named as an argument is searched")
	assert.Equal(t, 1, strings.Count(stdout, "crd.invalid"))
}

// TestCheckUsageNamesBounds: the help text documents every bound.
func TestCheckUsageNamesBounds(t *testing.T) {
	_, _, stderr := check("-h")
	for _, want := range []string{"32 MiB read", "32 MiB of values after YAML aliases are expanded", "1000000 YAML nodes",
		"10000 documents", "100 findings per file"} {
		assert.Contains(t, stderr, want)
	}
}

// goodCRD is a CRD of no contract role with no violations.
const goodCRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: things.x.io}\n" +
	"spec: {group: x.io, names: {kind: Thing, plural: things, listKind: ThingList, singular: thing}, scope: Namespaced, versions: " +
	"[{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]}\n"

// TestCheckListsWhatItCannotRead: a Helm values file, a clusterctl configuration file, a kustomization and malformed
// YAML are each listed as "FILE: not checked: REASON" naming what they are, and the other files are still checked.
func TestCheckListsWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	values := writeFile(t, dir, "cilium/values.yaml", "hubble:\n  enabled: false\n")
	config := writeFile(t, dir, "testdata/init.yaml", "CLUSTERCTL_LOG_LEVEL: 10\nproviders:\n- name: x\n  url: file://${HOME}/x.yaml\n")
	kustomization := writeFile(t, dir, "overlay/kustomization.yaml", "resources: [../cilium]\n")
	broken := writeFile(t, dir, "cluster-template-broken.yaml", "apiVersion: v1\nkind: A\nx: [${A}\ny: 1\n")
	writeFile(t, dir, "crd.yaml", badCRD)
	code, stdout, stderr := check(dir)
	assert.Equal(t, 1, code, "a violation was found: 1 wins over files not checked")
	assert.Equal(t, []string{
		dir + "/crd.yaml:1: error: CustomResourceDefinition/xclusters.infrastructure.x.io: crd.invalid: spec.versions: the CRD has no versions",
		values + ": not checked: a Helm values file, not Kubernetes objects (malformed YAML at line 1: document has no apiVersion)",
		broken + ": not checked: malformed YAML at line 3: did not find expected ',' or ']'",
		kustomization + ": not checked: a kustomization, which capkit does not build: check what it builds (kubectl kustomize " + dir + "/overlay > built.yaml; capkit check built.yaml)",
		config + ": not checked: a clusterctl configuration file, not Kubernetes objects (malformed YAML at line 1: document has no apiVersion)",
	}, strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"))
	assert.Equal(t, "capkit check: 5 files, 1 violation, 4 not checked (listed above)\n", stderr)
}

// TestCheckExitCodes: 0 clean (files that are not release files listed as not checked), 1 errors or warnings
// (whatever else), 2 no errors or warnings but files that could not be read (1 with --strict), usage errors and
// arguments that cannot be read.
func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	clean := writeFile(t, dir, "crd.yaml", goodCRD)
	bad := writeFile(t, dir, "bad.yaml", badCRD)
	malformed := writeFile(t, dir, "malformed.yaml", "a: [\n")
	role := writeFile(t, dir, "role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n")
	unreadable := writeFile(t, dir, "secret/unreadable.yaml", goodCRD)
	require.NoError(t, os.Chmod(unreadable, 0))
	if f, err := os.Open(unreadable); err == nil {
		_ = f.Close()
		t.Log("running with permission to read anything: the unreadable cases are left out")
		unreadable = ""
	}
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"clean", []string{clean}, 0},
		{"violations", []string{bad}, 1},
		{"not checked: malformed", []string{clean, malformed}, 2},
		{"not checked: not a release file", []string{clean, role}, 0},
		{"violations and not checked", []string{bad, malformed}, 1},
		{"strict", []string{"--strict", clean, malformed}, 1},
		{"missing argument", []string{filepath.Join(dir, "nope.yaml")}, 2},
		{"no arguments", nil, 2},
	}
	if unreadable != "" {
		tests = append(tests,
			struct {
				name string
				args []string
				want int
			}{"unreadable argument", []string{clean, unreadable}, 2},
			struct {
				name string
				args []string
				want int
			}{"unreadable file in a folder", []string{filepath.Dir(unreadable)}, 2})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := check(tt.args...)
			assert.Equal(t, tt.want, code, stdout+stderr)
		})
	}
}

// TestCheckNamesTheKustomization: config/crd/bases, whose CRDs get their contract labels from config/crd's
// kustomization, is checked, and the summary names the folder whose output to check.
func TestCheckNamesTheKustomization(t *testing.T) {
	repo := t.TempDir()
	writeFile(t, repo, "go.mod", "module x\n")
	writeFile(t, repo, "config/crd/kustomization.yaml", "labels:\n- pairs: {cluster.x-k8s.io/v1beta2: v1}\nresources: [bases/x.io_things.yaml]\n")
	writeFile(t, repo, "config/crd/bases/x.io_things.yaml", goodCRD)
	bases := filepath.Join(repo, "config", "crd", "bases")
	code, stdout, stderr := check(bases)
	assert.Equal(t, 0, code, stdout)
	assert.Equal(t, "capkit check: 1 file, 0 violations; "+bases+" has no kustomization but "+filepath.Join(repo, "config", "crd")+
		" has one, which may add labels (such as the contract labels of CRDs) and patches: to check what a release ships, check what it builds (kubectl kustomize "+
		filepath.Join(repo, "config", "crd")+")\n", stderr)

	code, _, stderr = check(filepath.Join(repo, "config"))
	assert.Equal(t, 0, code, "the kustomization is listed as not checked")
	assert.NotContains(t, stderr, "has no kustomization", "nothing above config but the repository root")
}
