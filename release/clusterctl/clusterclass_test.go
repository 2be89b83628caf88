package clusterctl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

// readFixture returns the text of a file under testdata.
func readFixture(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", path))
	require.NoError(t, err)
	return string(data)
}

// replaceOnce replaces old, which must occur in s, once.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	require.Contains(t, s, old)
	return strings.Replace(s, old, new, 1)
}

// classFindings checks one ClusterClass definition file and returns its findings as "rule path: message".
func classFindings(t *testing.T, name, text string) []string {
	t.Helper()
	findings, err := clusterctl.CheckFiles(yamlFile(t, name, text))
	require.NoError(t, err)
	out := make([]string, 0, len(findings))
	for _, f := range findings {
		out = append(out, f.Rule+" "+f.Path+": "+f.Message)
	}
	return out
}

// assertFindings asserts that got has one finding per want, each containing its want, in order.
func assertFindings(t *testing.T, want, got []string) {
	t.Helper()
	require.Len(t, got, len(want), strings.Join(got, "\n"))
	for i := range want {
		assert.Contains(t, got[i], want[i])
	}
}

func TestCheckClusterClassV1Beta2(t *testing.T) {
	good := readFixture(t, "good/v1beta2/clusterclass-mem.yaml")
	const file = "rel/clusterclass-mem.yaml"
	tests := []struct {
		name string
		file string
		edit func(t *testing.T, s string) string
		want []string
	}{
		{name: "clean"},
		{name: "another version of the template's group is fine (Cluster API moves references to the newest)",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "      apiVersion: infrastructure.example.io/v1alpha1\n      kind: MemClusterTemplate",
					"      apiVersion: infrastructure.example.io/v1alpha2\n      kind: MemClusterTemplate")
			}},
		{name: "literal dollars and shell variables are not clusterctl variables",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, `echo "node $HOSTNAME"`, `echo "node $HOSTNAME $${HOME}"`)
			}},
		{name: "file named after another class", file: "rel/clusterclass-prod.yaml",
			want: []string{`clusterclass.file-name metadata.name: file "clusterclass-prod.yaml" does not match the ClusterClass name "mem": clusterctl generate cluster looks for "clusterclass-mem.yaml"`}},
		{name: "yml is not the name clusterctl looks for", file: "rel/clusterclass-mem.yml",
			want: []string{`clusterclass.file-name metadata.name: file "clusterclass-mem.yml" does not match`}},
		{name: "recognised by content: the name is not judged", file: "rel/classes.yaml"},
		{name: "no ClusterClass",
			edit: func(_ *testing.T, s string) string { return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n" },
			want: []string{"clusterclass.count : no cluster.x-k8s.io ClusterClass in the file"}},
		{name: "two ClusterClasses",
			edit: func(_ *testing.T, s string) string {
				return s + "---\napiVersion: cluster.x-k8s.io/v1beta2\nkind: ClusterClass\nmetadata: {name: mem-small}\nspec: {}\n"
			},
			want: []string{`clusterclass.count : another ClusterClass in the file (the first is "mem")`}},
		{name: "Namespace object",
			edit: func(_ *testing.T, s string) string {
				return "apiVersion: v1\nkind: Namespace\nmetadata: {name: classes}\n---\n" + s
			},
			want: []string{"clusterclass.namespace : a ClusterClass definition must assume that its target namespace exists"}},
		{name: "object with a namespace",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "kind: MemClusterTemplate\nmetadata:\n  name: mem\n", "kind: MemClusterTemplate\nmetadata:\n  name: mem\n  namespace: default\n")
			},
			want: []string{`clusterclass.object-namespace metadata.namespace: namespace is "default": leave it out`}},
		{name: "reference with a namespace",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "      kind: MemClusterTemplate\n      name: mem\n", "      kind: MemClusterTemplate\n      name: mem\n      namespace: default\n")
			},
			want: []string{`clusterclass.object-namespace spec.infrastructure.templateRef.namespace: the reference names namespace "default"`}},
		{name: "referenced template not in the file",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "kind: KubeadmConfigTemplate\n          name: mem-default-worker", "kind: KubeadmConfigTemplate\n          name: mem-worker")
			},
			want: []string{"clusterclass.template-ref spec.workers.machineDeployments[0].bootstrap.templateRef: the reference names KubeadmConfigTemplate/mem-worker, which is not in the file"}},
		{name: "referenced template of another group",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "apiVersion: controlplane.cluster.x-k8s.io/v1beta2\n      kind: KubeadmControlPlaneTemplate",
					"apiVersion: controlplane.example.io/v1beta2\n      kind: KubeadmControlPlaneTemplate")
			},
			want: []string{`clusterclass.template-ref spec.controlPlane.templateRef: the reference names KubeadmControlPlaneTemplate/mem-control-plane in group "controlplane.example.io", but the file's KubeadmControlPlaneTemplate/mem-control-plane is in group "controlplane.cluster.x-k8s.io"`}},
		{name: "reference without apiVersion",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "      templateRef:\n        apiVersion: infrastructure.example.io/v1alpha1\n", "      templateRef:\n")
			},
			want: []string{"clusterclass.template-ref spec.controlPlane.machineInfrastructure.templateRef: the reference has no apiVersion: it needs apiVersion, kind and name"}},
		{name: "reference not a map",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "  infrastructure:\n    templateRef:\n      apiVersion: infrastructure.example.io/v1alpha1\n      kind: MemClusterTemplate\n      name: mem\n",
					"  infrastructure:\n    templateRef: mem\n")
			},
			want: []string{`clusterclass.template-ref spec.infrastructure.templateRef: the reference is the string "mem", want a map of apiVersion, kind and name`}},
		{name: "v1beta1 ref in a v1beta2 ClusterClass",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "    machineInfrastructure:\n      templateRef:", "    machineInfrastructure:\n      ref:")
			},
			want: []string{"clusterclass.template-ref spec.controlPlane.machineInfrastructure.ref: this is the cluster.x-k8s.io/v1beta1 form: a cluster.x-k8s.io/v1beta2 ClusterClass references templates with templateRef {apiVersion, kind, name}"}},
		{name: "machine pools and remediation templates are references too",
			edit: func(t *testing.T, s string) string {
				s = replaceOnce(t, s, "  workers:\n", `    healthCheck:
      remediation:
        templateRef: {apiVersion: infrastructure.example.io/v1alpha1, kind: MemRemediationTemplate, name: mem}
  workers:
    machinePools:
    - class: pool
      bootstrap:
        templateRef: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta2, kind: KubeadmConfigTemplate, name: mem-default-worker}
      infrastructure:
        templateRef: {apiVersion: infrastructure.example.io/v1alpha1, kind: MemMachinePoolTemplate, name: mem-pool}
`)
				return s
			},
			want: []string{
				"clusterclass.template-ref spec.controlPlane.healthCheck.remediation.templateRef: the reference names MemRemediationTemplate/mem, which is not in the file",
				"clusterclass.template-ref spec.workers.machinePools[0].infrastructure.templateRef: the reference names MemMachinePoolTemplate/mem-pool, which is not in the file",
			}},
		{name: "clusterctl variable in a field",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "      region: eu-1\n", "      region: ${MEM_REGION:=eu-1}-${ZONE}\n")
			},
			want: []string{"clusterclass.variables spec.template.spec.region: uses the clusterctl variable ${MEM_REGION}, ${ZONE}: a ClusterClass definition should have none"}},
		{name: "clusterctl variable in a key",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "kind: MemClusterTemplate\nmetadata:\n  name: mem\n", "kind: MemClusterTemplate\nmetadata:\n  name: mem\n  labels:\n    example.io/${TEAM}: \"true\"\n")
			},
			want: []string{"clusterclass.variables metadata.labels[example.io/${TEAM}]: uses the clusterctl variable ${TEAM}"}},
		{name: "clusterctl variable in a comment",
			edit: func(_ *testing.T, s string) string { return "# Image: ${MEM_IMAGE}\n" + s },
			want: []string{"clusterclass.variables : ${MEM_IMAGE} outside any field, e.g. in a comment"}},
		{name: "malformed variable",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "      region: eu-1\n", "      region: ${MEM_REGION\n")
			},
			want: []string{`clusterclass.variables spec.template.spec.region: "${MEM_REGION" holds a "${" that clusterctl cannot parse`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, name := good, file
			if tt.edit != nil {
				text = tt.edit(t, text)
			}
			if tt.file != "" {
				name = tt.file
			}
			assertFindings(t, tt.want, classFindings(t, name, text))
		})
	}
}

func TestCheckClusterClassV1Beta1(t *testing.T) {
	good := readFixture(t, "good/v1beta1/clusterclass-legacy.yaml")
	tests := []struct {
		name string
		edit func(t *testing.T, s string) string
		want []string
	}{
		{name: "clean"},
		{name: "v1beta2 templateRef in a v1beta1 ClusterClass",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "  infrastructure:\n    ref:", "  infrastructure:\n    templateRef:")
			},
			want: []string{"clusterclass.template-ref spec.infrastructure.templateRef: this is the cluster.x-k8s.io/v1beta2 form: a cluster.x-k8s.io/v1beta1 ClusterClass references templates with ref {apiVersion, kind, name}"}},
		{name: "reference with a namespace",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "      name: legacy-control-plane\n", "      name: legacy-control-plane\n      namespace: legacy\n")
			},
			want: []string{`clusterclass.object-namespace spec.controlPlane.ref.namespace: the reference names namespace "legacy"`}},
		{name: "referenced template not in the file",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "kind: LegacyMachineTemplate\n            name: legacy-default-worker", "kind: LegacyMachineTemplate\n            name: legacy-worker")
			},
			want: []string{"clusterclass.template-ref spec.workers.machineDeployments[0].template.infrastructure.ref: the reference names LegacyMachineTemplate/legacy-worker, which is not in the file"}},
		{name: "remediation template",
			edit: func(t *testing.T, s string) string {
				return replaceOnce(t, s, "  workers:\n", "    machineHealthCheck:\n      remediationTemplate: {apiVersion: infrastructure.legacy.example.io/v1beta1, kind: LegacyRemediationTemplate, name: r, namespace: legacy}\n  workers:\n")
			},
			want: []string{
				"clusterclass.template-ref spec.controlPlane.machineHealthCheck.remediationTemplate: the reference names LegacyRemediationTemplate/r, which is not in the file",
				`clusterclass.object-namespace spec.controlPlane.machineHealthCheck.remediationTemplate.namespace: the reference names namespace "legacy"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := good
			if tt.edit != nil {
				text = tt.edit(t, text)
			}
			assertFindings(t, tt.want, classFindings(t, "rel/clusterclass-legacy.yaml", text))
		})
	}
}

// TestCheckClusterClassBadFixture pins the findings of testdata/bad/clusterclass/clusterclass-mem.yaml, with their
// lines, objects and paths.
func TestCheckClusterClassBadFixture(t *testing.T) {
	findings, err := clusterctl.CheckFiles(readTree(t, "bad/clusterclass")...)
	require.NoError(t, err)
	var lines []string
	for _, f := range findings {
		if filepath.Base(f.File) == "clusterclass-mem.yaml" {
			lines = append(lines, strings.TrimPrefix(f.String(), f.File))
		}
	}
	assert.Equal(t, []string{
		":1: warning: clusterclass.variables: ${CLASS_VERSION} outside any field, e.g. in a comment: clusterctl reads variables there too; a ClusterClass definition should have none",
		":5: error: Namespace/mem-classes: clusterclass.namespace: a ClusterClass definition must assume that its target namespace exists: remove the Namespace",
		`:10: warning: ClusterClass/mem-prod: clusterclass.file-name: metadata.name: file "clusterclass-mem.yaml" does not match the ClusterClass name "mem-prod": clusterctl generate cluster looks for "clusterclass-mem-prod.yaml"`,
		`:10: warning: ClusterClass/mem-prod: clusterclass.object-namespace: metadata.namespace: namespace is "mem-classes": leave it out, so that clusterctl creates the ClusterClass and its templates in the namespace of the Cluster that uses them`,
		":10: error: ClusterClass/mem-prod: clusterclass.template-ref: spec.controlPlane.machineInfrastructure.ref: this is the cluster.x-k8s.io/v1beta1 form: a cluster.x-k8s.io/v1beta2 ClusterClass references templates with templateRef {apiVersion, kind, name}",
		`:10: warning: ClusterClass/mem-prod: clusterclass.object-namespace: spec.infrastructure.templateRef.namespace: the reference names namespace "mem-classes": leave it out, so that the templates are found in the namespace of the ClusterClass`,
		":10: error: ClusterClass/mem-prod: clusterclass.template-ref: spec.workers.machineDeployments[0].bootstrap.templateRef: the reference names KubeadmConfigTemplate/mem-prod-default-worker, which is not in the file: a ClusterClass definition holds every template its ClusterClass references",
		`:10: error: ClusterClass/mem-prod: clusterclass.template-ref: spec.workers.machineDeployments[0].infrastructure.templateRef: the reference names MemMachineTemplate/mem-prod-default-worker in group "infrastructure.other.io", but the file's MemMachineTemplate/mem-prod-default-worker is in group "infrastructure.example.io"`,
		":46: warning: MemClusterTemplate/mem-prod: clusterclass.variables: spec.template.spec.region: uses the clusterctl variable ${MEM_REGION}: a ClusterClass definition should have none; use the ClusterClass's variables and patches (spec.variables, spec.patches)",
	}, lines)
}

// TestCheckClusterClassNotInOtherFiles: the ClusterClass rules judge ClusterClass definitions only; a cluster
// template keeps its own rules, under which ${NAMESPACE} is allowed.
func TestCheckClusterClassNotInOtherFiles(t *testing.T) {
	text := "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: '${CLUSTER_NAME}', namespace: '${NAMESPACE}'}\nspec: {topology: {classRef: {name: mem}}}\n"
	findings, err := clusterctl.CheckFiles(yamlFile(t, "rel/cluster-template-topology.yaml", text))
	require.NoError(t, err)
	assert.Empty(t, findings.Violations().Strings())
}
