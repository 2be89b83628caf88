package clusterctl_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// ruleCRD is a CRD of kind in group with one served v1beta2 version whose status has the v1beta2 InfraCluster or
// bootstrap fields, and the given labels (YAML flow map entries, "" for none).
func ruleCRD(group, kind, scope, labels string) string {
	plural := strings.ToLower(kind) + "s"
	return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: " + plural + "." + group + ", labels: {" + labels + "}}\n" +
		"spec:\n  group: " + group + "\n  names: {kind: " + kind + ", listKind: " + kind + "List, plural: " + plural + "}\n  scope: " + scope + "\n" +
		"  versions:\n  - name: v1beta2\n    served: true\n    storage: true\n    subresources: {status: {}}\n" +
		"    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {controlPlaneEndpoint: {type: object, properties: {host: {type: string}, port: {type: integer}}}}}, " +
		"status: {type: object, properties: {dataSecretName: {type: string}, initialization: {type: object, properties: {provisioned: {type: boolean}, dataSecretCreated: {type: boolean}}}}}}}}\n"
}

const v1beta2Label = "cluster.x-k8s.io/v1beta2: v1beta2"

// rulesOf returns the rules of the findings, in order, and the not-checked lines of FindUnclassified.
func rulesOf(t *testing.T, files ...*clusterctl.YAMLFile) (rules, notChecked []string) {
	t.Helper()
	findings, err := clusterctl.CheckFiles(files...)
	require.NoError(t, err)
	for _, f := range findings {
		rules = append(rules, f.Rule)
	}
	for _, u := range clusterctl.FindUnclassified(files...) {
		notChecked = append(notChecked, u.String())
	}
	return rules, notChecked
}

// TestContractAndMoveLabelsOfUnlabelledCRDs: CRDs as controller-gen writes them (no contract label on any) get one
// note, not crd.contract-label or crd.move-label each; a CRD that lacks the label among labelled ones, and a components
// file's CRDs, are still judged.
func TestContractAndMoveLabelsOfUnlabelledCRDs(t *testing.T) {
	cluster := ruleCRD("infrastructure.example.io", "MemCluster", "Namespaced", "")
	identity := ruleCRD("infrastructure.example.io", "MemClusterIdentity", "Cluster", "")
	tests := []struct {
		name       string
		files      map[string]string
		want       []string // rules, in order
		notChecked string   // a substring of the only not-checked line, "" for none
	}{
		{name: "bases only: labels come from kustomize (FALSE before)",
			files:      map[string]string{"config/crd/bases/a.yaml": cluster, "config/crd/bases/b.yaml": identity},
			notChecked: "config/crd/bases: note: labels not checked: none of the 2 CRDs here carries a cluster.x-k8s.io/<contract> label"},
		{name: "one labelled, one not: the unlabelled one is missing its label",
			files: map[string]string{"crds/a.yaml": ruleCRD("infrastructure.example.io", "MemCluster", "Namespaced", v1beta2Label),
				"crds/b.yaml": ruleCRD("infrastructure.example.io", "MemMachine", "Namespaced", "")},
			want: []string{lint.RuleCRDContractLabel}},
		{name: "released CRDs: a components file's unlabelled identity needs a move label",
			files: map[string]string{"release/infrastructure-components.yaml": strings.TrimPrefix(componentsHead, "") + "---\n" +
				strings.Replace(identity, "labels: {}", "labels: {cluster.x-k8s.io/provider: infrastructure-mem}", 1)},
			want: []string{clusterctl.RuleCRDMoveLabel}},
		{name: "bases with an identity and labelled types: the identity's move label is judged",
			files: map[string]string{"bases/a.yaml": ruleCRD("infrastructure.example.io", "MemCluster", "Namespaced", v1beta2Label), "bases/b.yaml": identity},
			want:  []string{clusterctl.RuleCRDMoveLabel}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []*clusterctl.YAMLFile
			for name, text := range tt.files {
				files = append(files, yamlFile(t, name, text))
			}
			rules, notChecked := rulesOf(t, files...)
			assert.Equal(t, tt.want, rules)
			if tt.notChecked == "" {
				assert.Empty(t, notChecked)
				return
			}
			require.Len(t, notChecked, 1)
			assert.Contains(t, notChecked[0], tt.notChecked)
			assert.Contains(t, notChecked[0], "config/crd/kustomization.yaml")
		})
	}
}

// TestMetadataCRDContractOnlyLabelledCRDs: metadata.yaml is compared with the CRDs that carry contract labels only.
func TestMetadataCRDContractOnlyLabelledCRDs(t *testing.T) {
	metadata := "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- {major: 1, minor: 11, contract: v1beta2}\n"
	tests := []struct {
		name   string
		labels string
		want   []string
	}{
		{"no contract label: controller-gen's output, not compared (FALSE before)", "", nil},
		{"labelled for another contract (DigitalOcean: v1.11 -> v1beta2, CRDs v1beta1)", "cluster.x-k8s.io/v1beta1: v1beta2", []string{clusterctl.RuleMetadataCRDContract}},
		{"labelled for the series' contract", v1beta2Label, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, _ := rulesOf(t, yamlFile(t, "p/metadata.yaml", metadata),
				yamlFile(t, "p/bases/a.yaml", ruleCRD("infrastructure.example.io", "MemCluster", "Namespaced", tt.labels)))
			assert.Equal(t, tt.want, only(rules, clusterctl.RuleMetadataCRDContract))
		})
	}
}

// TestAggregatedRoleGroups: Cluster API's manager role grants every verb on the infrastructure, bootstrap,
// controlplane and addons groups of cluster.x-k8s.io; another group needs an aggregated ClusterRole.
func TestAggregatedRoleGroups(t *testing.T) {
	tests := []struct {
		group, kind string
		want        []string
	}{
		{"bootstrap.cluster.x-k8s.io", "EKSConfig", nil}, // AWS, GCP: FALSE before
		{"controlplane.cluster.x-k8s.io", "MemControlPlane", nil},
		{"infrastructure.cluster.x-k8s.io", "MemCluster", nil},
		{"bootstrap.example.io", "FooConfig", []string{clusterctl.RuleComponentsAggregatedRole}},
		{"infrastructure.example.io", "MemCluster", []string{clusterctl.RuleComponentsAggregatedRole}},
	}
	for _, tt := range tests {
		t.Run(tt.group, func(t *testing.T) {
			crd := strings.Replace(ruleCRD(tt.group, tt.kind, "Namespaced", v1beta2Label), "labels: {", "labels: {cluster.x-k8s.io/provider: infrastructure-mem, ", 1)
			rules, _ := rulesOf(t, yamlFile(t, "infrastructure-components.yaml", componentsHead+"---\n"+crd))
			assert.Equal(t, tt.want, only(rules, clusterctl.RuleComponentsAggregatedRole))
		})
	}
}

// TestUnbracedShellVariables: $NAME that a script of the same document assigns is the shell's, not clusterctl's.
func TestUnbracedShellVariables(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // names reported
	}{
		{"exported earlier (Hetzner)", "preKubeadmCommands:\n- export RUNC=1.2.5\n- ARCH=\"$(dpkg --print-architecture)\"\n- wget https://x/v$RUNC/runc.$ARCH\n", nil},
		{"assigned in a script file (vSphere)", "content: |\n  KUBEADM_MINOR=\"$(kubeadm version -o short)\"\n  if [[ \"$KUBEADM_MINOR\" -lt \"29\" ]]; then :; fi\n", nil},
		{"assigned from a clusterctl variable (Nutanix)", "content: |\n  V=${KUBERNETES_VERSION#v}\n  echo \"$V\"\n", nil},
		{"read and for", "x: |\n  read -r LINE\n  for ITEM in a b; do echo $ITEM $LINE; done\n", nil},
		{"local and declare", "x: |\n  local A=1\n  declare -r B=2\n  echo $A $B\n", nil},
		{"never assigned", "x: |\n  echo $CLUSTER_NAME\n", []string{"CLUSTER_NAME"}},
		{"compared, not assigned", "x: |\n  [ \"$MODE\" == \"a\" ]\n", []string{"MODE"}},
		{"clusterctl default is no assignment", "x: ${ZONE:=a}\ny: $ZONE\n", []string{"ZONE"}},
		{"assigned in another document", "x: |\n  A=1\n---\ny: $A\n", []string{"A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, issues := clusterctl.ScanVariables([]byte(tt.text))
			var got []string
			for _, is := range issues {
				if is.Rule == clusterctl.RuleVariableUnbraced {
					got = append(got, regexp.MustCompile(`^\$([A-Z_0-9]+)`).FindStringSubmatch(is.Message)[1])
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestClusterClassVariablesOnlyOnReleaseAssets: clusterclass.variables judges clusterclass-<name>.yaml only.
func TestClusterClassVariablesOnlyOnReleaseAssets(t *testing.T) {
	class := "apiVersion: cluster.x-k8s.io/v1beta2\nkind: ClusterClass\nmetadata: {name: dev}\nspec:\n  infrastructure: {templateRef: {apiVersion: infrastructure.example.io/v1beta2, kind: MemClusterTemplate, name: dev}}\n" +
		"---\napiVersion: infrastructure.example.io/v1beta2\nkind: MemClusterTemplate\nmetadata: {name: dev}\nspec: {template: {spec: {bridge: \"${BRIDGE}\"}}}\n"
	tests := []struct {
		file string
		want bool
	}{
		{"clusterclass-dev.yaml", true},         // a release asset (OpenStack, vSphere: TRUE)
		{"templates/cluster-class.yaml", false}, // found by content (Proxmox: FALSE before)
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rules, _ := rulesOf(t, yamlFile(t, tt.file, class))
			assert.Equal(t, tt.want, len(only(rules, clusterctl.RuleClusterClassVariables)) > 0, rules)
		})
	}
}

// only returns the elements of rules equal to rule.
func only(rules []string, rule string) []string {
	var out []string
	for _, r := range rules {
		if r == rule {
			out = append(out, r)
		}
	}
	return out
}

// TestRulesTable: every rule constant has an entry with a level and a source, and docs/contract-and-check.md lists
// every entry with its level and source.
func TestRulesTable(t *testing.T) {
	rules := clusterctl.Rules()
	ids := map[string]clusterctl.RuleInfo{}
	for _, r := range rules {
		assert.NotContains(t, ids, r.ID, "listed twice")
		ids[r.ID] = r
		assert.Contains(t, []clusterctl.Level{clusterctl.LevelError, clusterctl.LevelWarning, clusterctl.LevelNote}, r.Level, r.ID)
		assert.True(t, strings.HasPrefix(r.Source, "https://"), r.ID)
		assert.NotEmpty(t, r.What, r.ID)
	}
	for _, id := range []string{lint.RuleCRDInvalid, lint.RuleCRDScope, lint.RuleCRDListKind, lint.RuleCRDStatusSubresource, lint.RuleCRDContractLabel,
		lint.RuleCRDContractLabelVersion, lint.RuleCRDContractUnsupported, lint.RuleCRDContractShape, lint.RuleCRDServedVersionFields,
		lint.RuleCRDUntypedField, lint.RuleCRDStorageVersionFields, lint.RuleCRDName, clusterctl.RuleCRDAPIVersion, clusterctl.RuleCRDMoveLabel,
		clusterctl.RuleMetadataAPIVersion, clusterctl.RuleMetadataReleaseSeries, clusterctl.RuleMetadataContract, clusterctl.RuleMetadataCRDContract,
		clusterctl.RuleMetadataDocuments, clusterctl.RuleComponentsNamespace, clusterctl.RuleComponentsObjectNamespace, clusterctl.RuleComponentsProviderLabel,
		clusterctl.RuleComponentsManager, clusterctl.RuleComponentsImage, clusterctl.RuleComponentsInjectCAFrom, clusterctl.RuleComponentsAggregatedRole,
		clusterctl.RuleComponentsIPAMRBAC, clusterctl.RuleComponentsConversionWebhook, clusterctl.RuleTemplateCluster, clusterctl.RuleTemplateInfrastructureRef,
		clusterctl.RuleTemplateNamespace, clusterctl.RuleClusterClassCount, clusterctl.RuleClusterClassFileName, clusterctl.RuleClusterClassTemplateRef,
		clusterctl.RuleClusterClassNamespace, clusterctl.RuleClusterClassObjectNamespace, clusterctl.RuleClusterClassVariables, clusterctl.RuleClusterctlList,
		clusterctl.RuleVariableSyntax, clusterctl.RuleVariableUnsupported, clusterctl.RuleVariableUnbraced} {
		assert.Contains(t, ids, id)
	}
	for _, k := range []lint.Kind{lint.KindInfraCluster, lint.KindInfraMachine, lint.KindBootstrapConfig, lint.KindInfraMachinePool,
		lint.KindInfraClusterTemplate, lint.KindInfraMachineTemplate} {
		for _, r := range lint.Rules(k, "v1beta2") {
			_, exact := ids[r.Rule]
			_, family := ids[strings.SplitN(r.Rule, ".", 2)[0]+".*"]
			assert.True(t, exact || family, "rule %s has no entry", r.Rule)
		}
	}
	assert.Equal(t, clusterctl.LevelError, clusterctl.LevelOf("infracluster.provisioned"))
	assert.Equal(t, clusterctl.LevelNote, clusterctl.LevelOf(clusterctl.RuleVariableUnbraced))
	assert.Equal(t, clusterctl.LevelWarning, clusterctl.LevelOf(clusterctl.RuleComponentsProviderLabel))

	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "contract-and-check.md"))
	require.NoError(t, err)
	for _, r := range rules {
		assert.Contains(t, string(doc), "| `"+r.ID+"` | "+string(r.Level)+" |", "docs/contract-and-check.md lists %s", r.ID)
		assert.Contains(t, string(doc), r.Source, "docs/contract-and-check.md cites the source of %s", r.ID)
	}
}
