package clusterctl_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// readTree reads every YAML file under testdata/dir.
func readTree(t testing.TB, dir string) []*clusterctl.YAMLFile {
	t.Helper()
	var out []*clusterctl.YAMLFile
	err := filepath.WalkDir(filepath.Join("testdata", dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		f, err := clusterctl.ReadYAMLFile(path)
		require.NoError(t, err)
		out = append(out, f)
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, out)
	return out
}

func yamlFile(t testing.TB, name, text string) *clusterctl.YAMLFile {
	t.Helper()
	f, err := clusterctl.ReadYAML(strings.NewReader(text), name)
	require.NoError(t, err)
	return f
}

// rulesByFile returns the distinct rules of the findings, per file base name relative to testdata/bad.
func rulesByFile(fs clusterctl.Findings) map[string][]string {
	out := map[string][]string{}
	for _, f := range fs {
		rel, _ := filepath.Rel(filepath.Join("testdata", "bad"), f.File)
		if !contains(out[rel], f.Rule) {
			out[rel] = append(out[rel], f.Rule)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

func TestClassifyFile(t *testing.T) {
	tests := map[string]clusterctl.FileKind{
		"out/metadata.yaml":                    clusterctl.FileMetadata,
		"metadata.yml":                         clusterctl.FileMetadata,
		"infrastructure-components.yaml":       clusterctl.FileComponents,
		"release/bootstrap-components.yml":     clusterctl.FileComponents,
		"components.yaml":                      clusterctl.FileComponents,
		"cluster-template.yaml":                clusterctl.FileClusterTemplate,
		"templates/cluster-template-prod.yaml": clusterctl.FileClusterTemplate,
		"clusterclass-prod.yaml":               clusterctl.FileClusterClass,
		"templates/clusterclass-mem.yml":       clusterctl.FileClusterClass,
		"clusterclass.yaml":                    clusterctl.FileOther,
		"clusterclass-.yaml":                   clusterctl.FileOther,
		"my-clusterclass-prod.yaml":            clusterctl.FileOther,
		"cluster-templates.yaml":               clusterctl.FileOther,
		"config/crd/bases/x.yaml":              clusterctl.FileOther,
		"metadata.json":                        clusterctl.FileOther,
		"my-metadata.yaml":                     clusterctl.FileOther,
	}
	for name, want := range tests {
		assert.Equal(t, want, clusterctl.ClassifyFile(name), name)
	}
}

func TestCheckFilesGood(t *testing.T) {
	for _, dir := range []string{"good/v1beta2", "good/v1beta1", "good/bootstrap", "good/identity", "good/conversion", "good"} {
		t.Run(dir, func(t *testing.T) {
			findings, err := clusterctl.CheckFiles(readTree(t, dir)...)
			require.NoError(t, err)
			assert.Empty(t, findings.Violations().Strings())
		})
	}
}

func TestCheckFilesBad(t *testing.T) {
	findings, err := clusterctl.CheckFiles(readTree(t, "bad")...)
	require.NoError(t, err)
	want := map[string][]string{
		"crds/apiextensions-v1beta1.yaml":           {clusterctl.RuleCRDAPIVersion},
		"conversion/infrastructure-components.yaml": {clusterctl.RuleComponentsConversionWebhook},
		"crds/bootstrap-no-data-secret-name.yaml":   {"bootstrapconfig.dataSecretName"},
		"crds/cluster-scoped.yaml":                  {lint.RuleCRDScope},
		"crds/cluster-scoped-no-move-label.yaml":    {clusterctl.RuleCRDMoveLabel},
		"clusterclass/clusterclass-mem.yaml": {clusterctl.RuleClusterClassFileName, clusterctl.RuleClusterClassNamespace, clusterctl.RuleClusterClassObjectNamespace,
			clusterctl.RuleClusterClassTemplateRef, clusterctl.RuleClusterClassVariables},
		"clusterclass/clusterclass-legacy.yaml":    {clusterctl.RuleClusterClassCount, clusterctl.RuleClusterClassObjectNamespace, clusterctl.RuleClusterClassTemplateRef},
		"crds/contract-unsupported.yaml":           {lint.RuleCRDContractUnsupported},
		"crds/label-unknown-version.yaml":          {lint.RuleCRDContractLabelVersion},
		"crds/label-unserved-version.yaml":         {lint.RuleCRDContractLabelVersion},
		"crds/machinepool-broken.yaml":             {"inframachinepool.providerIDList", "inframachinepool.replicas"},
		"crds/missing-list-kind.yaml":              {lint.RuleCRDListKind},
		"crds/no-contract-label.yaml":              {lint.RuleCRDContractLabel},
		"crds/no-status-subresource.yaml":          {lint.RuleCRDStatusSubresource},
		"crds/served-version-missing-fields.yaml":  {lint.RuleCRDServedVersionFields},
		"crds/status-preserve-unknown-fields.yaml": {lint.RuleCRDUntypedField},
		"crds/template-without-template-spec.yaml": {"template.spec"},
		"crds/v1beta2-failure-domains-map.yaml":    {"infracluster.failureDomains"},
		"crds/v1beta2-label-v1beta1-status.yaml":   {lint.RuleCRDContractShape},
		"metadata-bad-series/metadata.yaml":        {clusterctl.RuleMetadataReleaseSeries, clusterctl.RuleMetadataContract},
		"metadata-no-series/metadata.yaml":         {clusterctl.RuleMetadataReleaseSeries},
		"metadata-old-contract/metadata.yaml":      {clusterctl.RuleMetadataContract},
		"metadata-wrong-api/metadata.yaml":         {clusterctl.RuleMetadataAPIVersion},
		"release/cluster-template-broken.yaml":     {clusterctl.RuleTemplateNamespace, clusterctl.RuleTemplateInfrastructureRef},
		"release/cluster-template-empty.yaml":      {clusterctl.RuleTemplateCluster},
		"release/infrastructure-components.yaml": {clusterctl.RuleComponentsManager, clusterctl.RuleComponentsNamespace, clusterctl.RuleComponentsAggregatedRole,
			clusterctl.RuleMetadataCRDContract, clusterctl.RuleComponentsProviderLabel, clusterctl.RuleComponentsObjectNamespace,
			clusterctl.RuleVariableUnbraced, clusterctl.RuleVariableUnsupported, clusterctl.RuleVariableSyntax},
	}
	got := rulesByFile(findings)
	for file, rules := range want {
		assert.ElementsMatch(t, rules, got[file], file)
	}
	assert.Len(t, got, len(want), "every bad file has findings, and only those")
}

func TestCheckFilesSortedAndPositioned(t *testing.T) {
	findings, err := clusterctl.CheckFiles(readTree(t, "bad/release")...)
	require.NoError(t, err)
	lines := make([]string, len(findings))
	for i, f := range findings {
		lines[i] = f.String()
	}
	assert.Contains(t, lines, `testdata/bad/release/infrastructure-components.yaml:10: error: Namespace/broken-extra: components.namespace: second Namespace in the components (the first is "broken-system"): clusterctl init refuses components with more than one Namespace`)
	assert.Contains(t, lines, `testdata/bad/release/infrastructure-components.yaml: error: components.manager: no Deployment with a container named "manager": clusterctl expects the controller to run in the container "manager" of a Deployment`)
	again, err := clusterctl.CheckFiles(readTree(t, "bad/release")...)
	require.NoError(t, err)
	assert.Equal(t, findings, again, "deterministic")
	for i := 1; i < len(findings); i++ {
		a, b := findings[i-1], findings[i]
		assert.True(t, a.File < b.File || a.File == b.File && a.Line <= b.Line, "sorted: %s before %s", a, b)
	}
}

func TestCheckFilesMalformedCRD(t *testing.T) {
	f, err := clusterctl.ReadYAMLFile(filepath.Join("testdata", "malformed", "crd-bad-types.yaml"))
	require.NoError(t, err, "the YAML itself is fine")
	_, err = clusterctl.CheckFiles(f)
	require.ErrorIs(t, err, clusterctl.ErrMalformed)
	assert.Contains(t, err.Error(), `testdata/malformed/crd-bad-types.yaml:1: malformed YAML: cannot decode CustomResourceDefinition "memclusters.infrastructure.example.io"`)
}

const componentsHead = `apiVersion: v1
kind: Namespace
metadata:
  name: capm-system
  labels: {cluster.x-k8s.io/provider: infrastructure-mem}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capm-controller
  namespace: capm-system
  labels: {cluster.x-k8s.io/provider: infrastructure-mem}
spec:
  template:
    spec:
      containers:
      - name: manager
        image: capm:${VERSION}
`

func TestCheckComponents(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		rules []string
	}{
		{"clean", "", nil},
		{"cluster-scoped objects need no namespace", `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
`, nil},
		{"namespaced object without namespace", `---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
`, []string{clusterctl.RuleComponentsObjectNamespace}},
		{"cluster-scoped custom resource", `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: memregions.example.io, labels: {cluster.x-k8s.io/provider: infrastructure-mem, clusterctl.cluster.x-k8s.io/move: ""}}
spec:
  group: example.io
  names: {kind: MemRegion, listKind: MemRegionList, plural: memregions}
  scope: Cluster
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
---
apiVersion: example.io/v1
kind: MemRegion
metadata: {name: eu, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
`, nil},
		{"cluster-scoped custom resource without a move label", `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: memregions.example.io, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
spec:
  group: example.io
  names: {kind: MemRegion, listKind: MemRegionList, plural: memregions}
  scope: Cluster
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`, []string{clusterctl.RuleCRDMoveLabel}},
		{"provider label of another provider", `---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-aws}}
`, []string{clusterctl.RuleComponentsProviderLabel}},
		{"variables", `---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
data: {a: "${A:=1}", b: "${ B }", c: "$$C", d: "$C", e: "${E"}
`, []string{clusterctl.RuleVariableUnbraced, clusterctl.RuleVariableSyntax}},
		{"canonical images, and images a variable without a default decides", `---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
spec:
  template:
    spec:
      initContainers: [{name: init, image: "${INIT_IMAGE:=registry.k8s.io/pause:3.10}"}]
      containers: [{name: a, image: "docker.io/library/busybox@sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa"},
        {name: b, image: "${AGENT_IMAGE}"}, {name: c, image: "localhost:5000/agent:${TAG:-v1}"}]
`, nil},
		{"images clusterctl init refuses", `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: more, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
spec:
  template:
    spec:
      initContainers: [{name: init, image: "busybox"}]
      containers: [{name: a, image: "${A_IMAGE:=capm/agent:dev}"}, {name: b, image: "Registry.example.io/Agent:v1"}]
`, []string{clusterctl.RuleComponentsImage}},
		{"inject-ca-from", `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: good, labels: {cluster.x-k8s.io/provider: infrastructure-mem}, annotations: {cert-manager.io/inject-ca-from: capm-system/capm-serving-cert}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: bad, labels: {cluster.x-k8s.io/provider: infrastructure-mem}, annotations: {cert-manager.io/inject-ca-from: capm-serving-cert}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-mem}, annotations: {cert-manager.io/inject-ca-from: not-rewritten}}
`, []string{clusterctl.RuleComponentsInjectCAFrom}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			findings, err := clusterctl.CheckFiles(yamlFile(t, "infrastructure-components.yaml", componentsHead+tt.extra))
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.rules, findings.Violations().Rules(), findings.Violations().String())
		})
	}
}

func TestCheckComponentsWithoutNamespace(t *testing.T) {
	text := `apiVersion: v1
kind: ServiceAccount
metadata: {name: a, labels: {cluster.x-k8s.io/provider: bootstrap-script}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: b, namespace: somewhere, labels: {cluster.x-k8s.io/provider: bootstrap-script}}
spec: {template: {spec: {containers: [{name: manager}]}}}
`
	findings, err := clusterctl.CheckFiles(yamlFile(t, "bootstrap-components.yaml", text))
	require.NoError(t, err)
	require.Len(t, findings, 2, findings.Violations().String())
	assert.Equal(t, clusterctl.RuleComponentsNamespace, findings[0].Rule, "clusterctl init cannot default the target namespace")
	assert.Contains(t, findings[0].Message, `no Namespace in the components: clusterctl init without --target-namespace refuses them`)
	assert.Equal(t, 0, findings[0].Line, "about the whole file")
	assert.Equal(t, clusterctl.RuleComponentsObjectNamespace, findings[1].Rule)
	assert.Equal(t, "Deployment/b", findings[1].Object)
	assert.Contains(t, findings[1].Message, `namespace is "somewhere" but the components have no Namespace object`)
	assert.Equal(t, 5, findings[1].Line)
}

func TestCheckMetadata(t *testing.T) {
	obj := func(series any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": clusterctl.MetadataAPIVersion, "kind": "Metadata"}}
		if series != nil {
			u.Object["releaseSeries"] = series
		}
		return u
	}
	s := func(major, minor int64, c string) map[string]any {
		return map[string]any{"major": major, "minor": minor, "contract": c}
	}
	tests := []struct {
		name   string
		u      *unstructured.Unstructured
		rules  []string
		newest string
		msg    string
	}{
		{"good", obj([]any{s(0, 2, "v1beta2"), s(1, 0, "v1beta2"), s(0, 1, "v1beta1")}), nil, "v1.0 v1beta2", ""},
		{"minor decides", obj([]any{s(1, 10, "v1beta2"), s(1, 9, "v1beta1")}), nil, "v1.10 v1beta2", ""},
		{"no series", obj(nil), []string{clusterctl.RuleMetadataReleaseSeries}, "", "releaseSeries is missing"},
		{"series a map", obj(map[string]any{"a": "b"}), []string{clusterctl.RuleMetadataReleaseSeries}, "", "releaseSeries is a object, want a list"},
		{"item a string", obj([]any{"v1"}), []string{clusterctl.RuleMetadataReleaseSeries}, "", `release series is a string, want a map`},
		{"negative minor", obj([]any{s(0, -1, "v1beta2")}), []string{clusterctl.RuleMetadataReleaseSeries}, "", "minor is -1 (number), want a non-negative integer"},
		{"float major", obj([]any{map[string]any{"major": 1.5, "minor": int64(0), "contract": "v1beta2"}}), []string{clusterctl.RuleMetadataReleaseSeries}, "", "major is 1.5 (number)"},
		{"contract typo", obj([]any{s(0, 1, "v1beta")}), []string{clusterctl.RuleMetadataContract}, "", `contract "v1beta" is not a contract version`},
		{"future contract", obj([]any{s(0, 1, "v2")}), []string{clusterctl.RuleMetadataContract}, "", `contract "v2" does not exist`},
		{"newest unsupported", obj([]any{s(0, 1, "v1alpha3")}), []string{clusterctl.RuleMetadataContract}, "v0.1 v1alpha3", "which current Cluster API does not support"},
		{"duplicate", obj([]any{s(0, 1, "v1beta2"), s(0, 1, "v1beta1")}), []string{clusterctl.RuleMetadataReleaseSeries}, "v0.1 v1beta2", "release series v0.1 is listed twice"},
		{"wrong kind", &unstructured.Unstructured{Object: map[string]any{"apiVersion": clusterctl.MetadataAPIVersion, "kind": "Meta",
			"releaseSeries": []any{s(0, 1, "v1beta2")}}}, []string{clusterctl.RuleMetadataAPIVersion}, "v0.1 v1beta2", `kind "Meta"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, newest := clusterctl.CheckMetadata(tt.u)
			if tt.rules == nil {
				assert.Empty(t, vs, vs.String())
			} else {
				assert.Equal(t, tt.rules, vs.Rules(), vs.String())
			}
			if tt.msg != "" {
				require.NotEmpty(t, vs)
				assert.Contains(t, vs.String(), tt.msg)
			}
			if tt.newest == "" {
				assert.Nil(t, newest)
				return
			}
			require.NotNil(t, newest)
			assert.Equal(t, tt.newest, newest.String()+" "+newest.Contract)
		})
	}
	vs, newest := clusterctl.CheckMetadata(nil)
	assert.Nil(t, newest)
	assert.Equal(t, []string{clusterctl.RuleMetadataAPIVersion}, vs.Rules())
}

func TestCheckMetadataFileDocuments(t *testing.T) {
	two := yamlFile(t, "rel/metadata.yaml", `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries: [{major: 0, minor: 1, contract: v1beta2}]
---
apiVersion: v1
kind: ConfigMap
`)
	findings, err := clusterctl.CheckFiles(two)
	require.NoError(t, err)
	assert.Equal(t, []string{clusterctl.RuleMetadataDocuments}, findings.Violations().Rules())

	findings, err = clusterctl.CheckFiles(yamlFile(t, "rel/metadata.yaml", "# empty\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{clusterctl.RuleMetadataDocuments}, findings.Violations().Rules())
}

func TestCheckMetadataAgainstCRDsInItsFolder(t *testing.T) {
	crds := readTree(t, "good/v1beta1") // LegacyCluster & co declare v1beta1 only
	meta := yamlFile(t, filepath.Join("testdata", "good", "v1beta1", "metadata.yaml"), `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries: [{major: 2, minor: 0, contract: v1beta2}]
`)
	var files []*clusterctl.YAMLFile
	for _, f := range crds {
		if clusterctl.ClassifyFile(f.Name) != clusterctl.FileMetadata {
			files = append(files, f)
		}
	}
	findings, err := clusterctl.CheckFiles(append(files, meta)...)
	require.NoError(t, err)
	require.Len(t, findings, 4, findings.Violations().String())
	for _, f := range findings {
		assert.Equal(t, clusterctl.RuleMetadataCRDContract, f.Rule)
		assert.Contains(t, f.Message, `maps the newest release series v2.0 to contract v1beta2, but the CRD has no "cluster.x-k8s.io/v1beta2" label (contract labels: cluster.x-k8s.io/v1beta1)`)
	}

	// A metadata.yaml in another folder does not judge these CRDs.
	meta.Name = filepath.Join("elsewhere", "metadata.yaml")
	meta.Documents[0].File = meta.Name
	findings, err = clusterctl.CheckFiles(append(files, meta)...)
	require.NoError(t, err)
	assert.Empty(t, findings)
}

func TestCheckMetadataOfReleaseFolders(t *testing.T) {
	// A provider's config folder, whose metadata.yaml lists an older series with an older contract, and below it
	// the folder of that older release, with its own metadata.yaml and CRDs.
	oldCRDs, err := os.ReadFile(filepath.Join("testdata", "good", "v1beta1", "crds.yaml")) // contract v1beta1 only
	require.NoError(t, err)
	meta := func(series string) string {
		return "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries: [" + series + "]\n"
	}
	current := meta("{major: 0, minor: 1, contract: v1beta1}, {major: 0, minor: 2, contract: v1beta2}")
	old := filepath.Join("config", "releases", "v0.1.0")
	tests := []struct {
		name  string
		files map[string]string
		// want are the files:objects of the metadata.crd-contract findings.
		want []string
	}{
		{name: "newest series decides, older series describe older releases", files: map[string]string{
			"config/metadata.yaml": current, "config/crd/bases/crds.yaml": templateCRD}},
		{name: "a nested release is judged by its own metadata.yaml", files: map[string]string{
			"config/metadata.yaml": current, "config/crd/bases/crds.yaml": templateCRD,
			old + "/metadata.yaml": meta("{major: 0, minor: 1, contract: v1beta1}"), old + "/crd/bases/crds.yaml": string(oldCRDs)}},
		{name: "the nested release's CRDs against the wrong contract", files: map[string]string{
			"config/metadata.yaml": current, "config/crd/bases/crds.yaml": templateCRD,
			old + "/metadata.yaml": meta("{major: 0, minor: 1, contract: v1beta2}"), old + "/crd/bases/crds.yaml": string(oldCRDs)},
			want: []string{old + "/crd/bases/crds.yaml:CustomResourceDefinition/legacyclusters.infrastructure.legacy.example.io",
				old + "/crd/bases/crds.yaml:CustomResourceDefinition/legacymachines.infrastructure.legacy.example.io",
				old + "/crd/bases/crds.yaml:CustomResourceDefinition/legacyclustertemplates.infrastructure.legacy.example.io",
				old + "/crd/bases/crds.yaml:CustomResourceDefinition/legacymachinetemplates.infrastructure.legacy.example.io"}},
		{name: "without its metadata.yaml a folder below is part of the release", files: map[string]string{
			"config/metadata.yaml": current, "config/crd/bases/crds.yaml": templateCRD, old + "/crd/bases/crds.yaml": string(oldCRDs)},
			want: []string{old + "/crd/bases/crds.yaml:CustomResourceDefinition/legacyclusters.infrastructure.legacy.example.io",
				old + "/crd/bases/crds.yaml:CustomResourceDefinition/legacymachines.infrastructure.legacy.example.io",
				old + "/crd/bases/crds.yaml:CustomResourceDefinition/legacyclustertemplates.infrastructure.legacy.example.io",
				old + "/crd/bases/crds.yaml:CustomResourceDefinition/legacymachinetemplates.infrastructure.legacy.example.io"}},
		{name: "the newest series' contract is missing", files: map[string]string{
			"config/metadata.yaml":       meta("{major: 0, minor: 2, contract: v1beta1}, {major: 0, minor: 1, contract: v1beta2}"),
			"config/crd/bases/crds.yaml": templateCRD},
			want: []string{"config/crd/bases/crds.yaml:CustomResourceDefinition/memmachines.infrastructure.example.io"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []*clusterctl.YAMLFile
			for name, text := range tt.files {
				files = append(files, yamlFile(t, filepath.FromSlash(name), text))
			}
			findings, err := clusterctl.CheckFiles(files...)
			require.NoError(t, err)
			var got []string
			for _, f := range findings {
				if f.Rule == clusterctl.RuleMetadataCRDContract {
					got = append(got, filepath.ToSlash(f.File)+":"+f.Object)
				}
			}
			assert.Equal(t, tt.want, got, findings.Violations().String())
		})
	}
}

const templateCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: memmachines.infrastructure.example.io
  labels: {cluster.x-k8s.io/v1beta2: v1alpha1}
spec:
  group: infrastructure.example.io
  names: {kind: MemMachine, listKind: MemMachineList, plural: memmachines}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {providerID: {type: string}}}
          status: {type: object, properties: {initialization: {type: object, properties: {provisioned: {type: boolean}}}}}
`

func TestCheckTemplate(t *testing.T) {
	cluster := func(ref string) string {
		return "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: c}\nspec:\n  infrastructureRef: " + ref + "\n"
	}
	memCluster := "---\napiVersion: infrastructure.example.io/v1alpha1\nkind: MemCluster\nmetadata: {name: c}\n"
	tests := []struct {
		name string
		text string
		crds bool // with the provider's CRDs
		want []string
	}{
		{"clean without CRDs", cluster("{apiGroup: infrastructure.example.io, kind: MemCluster, name: c}") + memCluster, false, nil},
		{"clean with CRDs", cluster("{apiGroup: infrastructure.example.io, kind: MemCluster, name: c}") + memCluster, true, nil},
		{"topology cluster", "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: c}\nspec: {topology: {classRef: {name: x}}}\n", true, nil},
		{"no ref", "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: c}\nspec: {}\n", false,
			[]string{"the Cluster has no spec.infrastructureRef (nor spec.topology)"}},
		{"ref not a map", cluster("MemCluster"), false, []string{"spec.infrastructureRef is not a map"}},
		{"ref without name", cluster("{apiGroup: infrastructure.example.io, kind: MemCluster}") + memCluster, false,
			[]string{"infrastructureRef needs kind and name"}},
		{"unknown kind", cluster("{apiGroup: infrastructure.example.io, kind: MemClstr, name: c}"), true,
			[]string{`infrastructureRef names MemClstr in group "infrastructure.example.io", which no CRD of the provider defines (kinds: MemCluster, MemMachine)`,
				"infrastructureRef names MemClstr/c, which is not in the template"}},
		{"wrong group", cluster("{apiGroup: infrastructure.other.io, kind: MemCluster, name: c}") + memCluster, true,
			[]string{`infrastructureRef names MemCluster in group "infrastructure.other.io", which no CRD`}},
		{"machine kind", cluster("{apiGroup: infrastructure.example.io, kind: MemMachine, name: c}") +
			"---\napiVersion: infrastructure.example.io/v1alpha1\nkind: MemMachine\nmetadata: {name: c}\n", true,
			[]string{`infrastructureRef names MemMachine, which is not an InfraCluster kind (its CRD plays role "InfraMachine")`}},
		{"v1beta1 cluster", "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {name: c}\nspec:\n  infrastructureRef: {apiVersion: infrastructure.example.io/v1alpha1, kind: MemCluster, name: c}\n" + memCluster, true, nil},
		{"namespace variable", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: '${ NAMESPACE }'}\n---\n" + cluster("{apiGroup: infrastructure.example.io, kind: MemCluster, name: c}") + memCluster, false, nil},
		{"fixed namespace", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: prod}\n---\n" + cluster("{apiGroup: infrastructure.example.io, kind: MemCluster, name: c}") + memCluster, false,
			[]string{`namespace is "prod": clusterctl generate cluster replaces it with the target namespace`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := []*clusterctl.YAMLFile{yamlFile(t, filepath.Join("rel", "cluster-template.yaml"), tt.text)}
			if tt.crds {
				files = append(files, yamlFile(t, filepath.Join("rel", "crds.yaml"), templateCRD+"---\n"+strings.ReplaceAll(strings.ReplaceAll(templateCRD,
					"MemMachine", "MemCluster"), "memmachines", "memclusters")))
			}
			findings, err := clusterctl.CheckFiles(files...)
			require.NoError(t, err)
			var msgs []string
			for _, f := range findings {
				if f.Rule == clusterctl.RuleTemplateInfrastructureRef || f.Rule == clusterctl.RuleTemplateNamespace {
					msgs = append(msgs, f.Message)
				}
			}
			require.Len(t, msgs, len(tt.want), findings.Violations().String())
			for i := range tt.want {
				assert.Contains(t, msgs[i], tt.want[i])
			}
		})
	}
}

func TestTemplateUsesNearestCRDs(t *testing.T) {
	// A template in templates/ of a repository finds the CRDs in config/crd/bases by going up.
	tmpl := yamlFile(t, filepath.Join("repo", "templates", "cluster-template.yaml"),
		"apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: c}\nspec:\n  infrastructureRef: {apiGroup: infrastructure.example.io, kind: FooCluster, name: c}\n---\napiVersion: infrastructure.example.io/v1alpha1\nkind: FooCluster\nmetadata: {name: c}\n")
	crd := yamlFile(t, filepath.Join("repo", "config", "crd", "bases", "crd.yaml"), templateCRD)
	findings, err := clusterctl.CheckFiles(tmpl, crd)
	require.NoError(t, err)
	require.Len(t, findings, 1, findings.Violations().String())
	assert.Contains(t, findings[0].Message, "FooCluster")
	assert.Contains(t, findings[0].Message, "(kinds: MemMachine)")
}

func TestFindings(t *testing.T) {
	fs := clusterctl.Findings{
		{File: "b.yaml", Line: 1, Violation: lint.Violation{Rule: "r", Object: "A/a", Message: "m"}},
		{File: "a.yaml", Line: 9, Violation: lint.Violation{Rule: "r", Message: "m"}},
		{File: "a.yaml", Line: 2, Violation: lint.Violation{Rule: "r", Object: "B/b", Path: "spec", Message: "m"}},
		{File: "a.yaml", Violation: lint.Violation{Rule: "whole", Message: "file"}},
	}
	fs.Sort()
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	assert.Equal(t, []string{"a.yaml: error: whole: file", "a.yaml:2: error: B/b: r: spec: m", "a.yaml:9: error: r: m", "b.yaml:1: error: A/a: r: m"}, got)
	assert.Len(t, fs.Violations(), 4)
}
