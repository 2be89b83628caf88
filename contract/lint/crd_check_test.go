package lint_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// fixtures is the folder of the CRD fixtures: they are those of package clusterctl's release files, whose CRDs
// CheckFiles checks with CheckCRD, kept in one place.
var fixtures = filepath.Join("..", "..", "release", "clusterctl", "testdata")

// loadCRDs reads every CRD of the YAML files at path (a file or a glob) under fixtures, keyed by kind.
func loadCRDs(t testing.TB, path string) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtures, path))
	require.NoError(t, err)
	require.NotEmpty(t, files, path)
	out := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, name := range files {
		f, err := clusterctl.ReadYAMLFile(name)
		require.NoError(t, err)
		for _, d := range f.Documents {
			if d.Object.GetKind() != "CustomResourceDefinition" {
				continue
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(d.Object.Object, crd))
			out[crd.Spec.Names.Kind] = crd
		}
	}
	return out
}

func goodV1Beta2(t testing.TB, kind string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd, ok := loadCRDs(t, "good/v1beta2/infrastructure-components.yaml")[kind]
	require.True(t, ok, kind)
	return crd
}

func goodV1Beta1(t testing.TB, kind string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd, ok := loadCRDs(t, "good/v1beta1/crds.yaml")[kind]
	require.True(t, ok, kind)
	return crd
}

func statusProps(crd *apiextensionsv1.CustomResourceDefinition, version int) map[string]apiextensionsv1.JSONSchemaProps {
	return crd.Spec.Versions[version].Schema.OpenAPIV3Schema.Properties["status"].Properties
}

func setStatus(crd *apiextensionsv1.CustomResourceDefinition, version int, status apiextensionsv1.JSONSchemaProps) {
	crd.Spec.Versions[version].Schema.OpenAPIV3Schema.Properties["status"] = status
}

func TestCheckCRDGoodFixtures(t *testing.T) {
	for _, path := range []string{"good/v1beta2/*.yaml", "good/v1beta1/*.yaml", "good/bootstrap/*.yaml"} {
		crds := loadCRDs(t, path)
		require.NotEmpty(t, crds)
		for kind, crd := range crds {
			t.Run(kind, func(t *testing.T) {
				_, known := lint.RoleOf(crd.Spec.Group, kind)
				require.True(t, known, "fixture %s must play a contract role", kind)
				assert.Empty(t, lint.CheckCRD(crd).Strings())
			})
		}
	}
}

func TestRoleOf(t *testing.T) {
	tests := []struct {
		group, kind string
		want        lint.Kind
		known       bool
	}{
		{"infrastructure.cluster.x-k8s.io", "AWSCluster", lint.KindInfraCluster, true},
		{"infrastructure.example.io", "MemMachine", lint.KindInfraMachine, true},
		{"infrastructure.example.io", "MemClusterTemplate", lint.KindInfraClusterTemplate, true},
		{"infrastructure.example.io", "MemMachineTemplate", lint.KindInfraMachineTemplate, true},
		{"bootstrap.cluster.x-k8s.io", "KubeadmConfig", lint.KindBootstrapConfig, true},
		{"bootstrap.cluster.x-k8s.io", "KubeadmConfigTemplate", lint.KindBootstrapConfigTemplate, true},
		{"infrastructure.example.io", "MemVPC", "", false},
		{"infrastructure.example.io", "MemMachinePool", lint.KindInfraMachinePool, true},
		{"infrastructure.example.io", "MemMachinePoolTemplate", lint.KindInfraMachinePoolTemplate, true},
		{"controlplane.cluster.x-k8s.io", "KubeadmControlPlane", "", false},
		{"example.io", "MemCluster", "", false},
		{"bootstrap.example.io", "Token", "", false},
	}
	for _, tt := range tests {
		got, known := lint.RoleOf(tt.group, tt.kind)
		assert.Equal(t, tt.want, got, "%s %s", tt.group, tt.kind)
		assert.Equal(t, tt.known, known, "%s %s", tt.group, tt.kind)
	}
}

func TestCheckCRDRules(t *testing.T) {
	tests := []struct {
		name   string
		kind   string // good v1beta2 fixture to start from
		mutate func(*apiextensionsv1.CustomResourceDefinition)
		rule   string
		msg    string // part of the message
	}{
		{"cluster scoped", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = apiextensionsv1.ClusterScoped },
			lint.RuleCRDScope, `scope is "Cluster", want "Namespaced"`},
		{"template cluster scoped", "MemMachineTemplate", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = apiextensionsv1.ClusterScoped },
			lint.RuleCRDScope, `scope is "Cluster"`},
		{"wrong listKind", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.ListKind = "MemClusters" },
			lint.RuleCRDListKind, `listKind is "MemClusters", want "MemClusterList"`},
		{"name not plural.group", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "memcluster.infrastructure.example.io" },
			lint.RuleCRDName, `name is "memcluster.infrastructure.example.io", want "memclusters.infrastructure.example.io" (<plural>.<group>)`},
		{"plural not lower case", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.Plural = "MemClusters"
			c.Name = "MemClusters.infrastructure.example.io"
		}, lint.RuleCRDName, `plural is "MemClusters", want the lower-case plural of kind "MemCluster"`},
		{"missing listKind", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.ListKind = "" },
			lint.RuleCRDListKind, `listKind is "", want "MemMachineList"`},
		{"no status subresource", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Subresources = nil },
			lint.RuleCRDStatusSubresource, `served version "v1alpha1" has no status subresource`},
		{"no contract label", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(c.Labels, contract.VersionLabel(contract.V1Beta2))
		}, lint.RuleCRDContractLabel, `no cluster.x-k8s.io/<contract> label: add "cluster.x-k8s.io/v1beta2"`},
		{"label names missing version", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels[contract.VersionLabel(contract.V1Beta2)] = "v1alpha1_v1beta9"
		}, lint.RuleCRDContractLabelVersion, `names API version "v1beta9", which the CRD does not define`},
		{"label names unserved version", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Served = false
		}, lint.RuleCRDContractLabelVersion, `names API version "v1alpha1", which the CRD does not serve`},
		{"empty label", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels[contract.VersionLabel(contract.V1Beta2)] = ""
		}, lint.RuleCRDContractLabelVersion, `label "cluster.x-k8s.io/v1beta2" is empty`},
		{"double underscore", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels[contract.VersionLabel(contract.V1Beta2)] = "v1alpha1__v1alpha1"
		}, lint.RuleCRDContractLabelVersion, `with an empty API version`},
		{"only old contract", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(c.Labels, contract.VersionLabel(contract.V1Beta2))
			c.Labels["cluster.x-k8s.io/v1alpha4"] = "v1alpha1"
		}, lint.RuleCRDContractUnsupported, `labels declare only cluster.x-k8s.io/v1alpha4`},
		{"provisioned missing", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(statusProps(c, 0), "initialization")
		}, "inframachine.provisioned", `API version "v1alpha1" (contract v1beta2) has no status.initialization.provisioned`},
		{"provisioned a string", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			statusProps(c, 0)["initialization"].Properties["provisioned"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		}, "infracluster.provisioned", `has status.initialization.provisioned of type string, want boolean`},
		{"endpoint missing", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties, "controlPlaneEndpoint")
		}, "infracluster.controlPlaneEndpoint", `has no spec.controlPlaneEndpoint`},
		{"port int-or-string", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["controlPlaneEndpoint"].Properties["port"] =
				apiextensionsv1.JSONSchemaProps{XIntOrString: true}
		}, "infracluster.controlPlaneEndpoint.port", `of type int-or-string, want integer`},
		{"failure domains map", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			statusProps(c, 0)["failureDomains"] = apiextensionsv1.JSONSchemaProps{Type: "object",
				AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}}
		}, "infracluster.failureDomains", `status.failureDomains of type object, want array (type object is the v1beta1 shape)`},
		{"failure domain without name", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(statusProps(c, 0)["failureDomains"].Items.Schema.Properties, "name")
		}, "infracluster.failureDomains.name", `items of status.failureDomains have no name`},
		{"failure domain controlPlane a string", "MemCluster", func(c *apiextensionsv1.CustomResourceDefinition) {
			statusProps(c, 0)["failureDomains"].Items.Schema.Properties["controlPlane"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		}, "infracluster.failureDomains.controlPlane", `status.failureDomains.controlPlane of type string, want boolean`},
		{"v1beta1 conditions under v1beta2", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) {
			statusProps(c, 0)["conditions"].Items.Schema.Properties["severity"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		}, "inframachine.conditions", `have a severity field: they are v1beta1 Cluster API conditions`},
		{"status preserves unknown fields", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) {
			setStatus(c, 0, apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)})
		}, lint.RuleCRDUntypedField, `keeps unknown fields at status (x-kubernetes-preserve-unknown-fields), so status.initialization.provisioned, status.addresses, status.failureDomain, status.conditions are stored but never validated`},
		{"template without template spec", "MemMachineTemplate", func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties, "template")
		}, "template.spec", `has no spec.template.spec`},
		{"no schema", "MemMachine", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Schema = nil },
			lint.RuleCRDInvalid, `API version "v1alpha1" (contract v1beta2) has no openAPIV3Schema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := goodV1Beta2(t, tt.kind)
			require.Empty(t, lint.CheckCRD(crd), "the fixture must be clean before the mutation")
			tt.mutate(crd)
			vs := lint.CheckCRD(crd)
			require.True(t, vs.Has(tt.rule), "want rule %s in:\n%s", tt.rule, vs)
			found := vs.Filter(func(v lint.Violation) bool { return v.Rule == tt.rule && strings.Contains(v.Message, tt.msg) })
			assert.NotEmpty(t, found, "want %q in:\n%s", tt.msg, vs)
			for _, v := range vs {
				assert.Equal(t, "CustomResourceDefinition/"+crd.Name, v.Object)
			}
		})
	}
}

func TestCheckCRDLabelV1Beta2StatusV1Beta1(t *testing.T) {
	crd := goodV1Beta1(t, "LegacyCluster")
	crd.Labels = map[string]string{contract.VersionLabel(contract.V1Beta2): "v1beta1"}
	vs := lint.CheckCRD(crd)
	shape := vs.Filter(func(v lint.Violation) bool { return v.Rule == lint.RuleCRDContractShape })
	require.Len(t, shape, 1, vs.String())
	assert.Equal(t, "spec.versions[v1beta1].schema.openAPIV3Schema.properties.status", shape[0].Path)
	assert.Contains(t, shape[0].Message, "label declares contract v1beta2 but status has v1beta1 shape: status.ready present, status.failureDomains is a map")
	assert.Contains(t, shape[0].Message, "status.initialization.provisioned missing")
	assert.Contains(t, shape[0].Message, "in version v1beta1's schema: status.initialization.provisioned: add it (embed contract.InfraClusterInitialization as status.initialization")
	assert.Contains(t, shape[0].Message, "status.failureDomains: make it array")
	// One mistake, one violation: the status field problems are folded into the shape violation.
	assert.Equal(t, []string{lint.RuleCRDContractShape}, vs.Rules(), vs.String())

	// Without a sign of the v1beta1 shape, the missing field is reported alone, with its fix.
	status := statusProps(crd, len(crd.Spec.Versions)-1)
	delete(status, "ready")
	delete(status, "v1beta2")
	status["failureDomains"] = statusProps(goodV1Beta2(t, "MemCluster"), 0)["failureDomains"]
	status["conditions"] = statusProps(goodV1Beta2(t, "MemCluster"), 0)["conditions"]
	vs = lint.CheckCRD(crd)
	prov := vs.Filter(func(v lint.Violation) bool { return v.Rule == "infracluster.provisioned" })
	require.Len(t, prov, 1, vs.String())
	assert.Contains(t, prov[0].Message, `API version "v1beta1" (contract v1beta2) has no status.initialization.provisioned: add status.initialization.provisioned to version v1beta1's schema (embed contract.InfraClusterInitialization`)
}

func TestCheckCRDLabelV1Beta1StatusV1Beta2(t *testing.T) {
	crd := goodV1Beta2(t, "MemMachine")
	crd.Labels = map[string]string{contract.VersionLabel(contract.V1Beta1): "v1alpha1"}
	vs := lint.CheckCRD(crd)
	shape := vs.Filter(func(v lint.Violation) bool { return v.Rule == lint.RuleCRDContractShape })
	require.Len(t, shape, 1, vs.String())
	assert.Contains(t, shape[0].Message, "label declares contract v1beta1 but status has v1beta2 shape: status.initialization.provisioned present")
	assert.Contains(t, shape[0].Message, "status.ready missing")

	// A v1beta1 type that merely lacks status.ready is not in the other shape: its status.conditions are
	// Cluster API v1beta1 conditions, no sign of v1beta2.
	legacy := goodV1Beta1(t, "LegacyMachine")
	delete(statusProps(legacy, 1), "ready")
	vs = lint.CheckCRD(legacy)
	assert.Equal(t, []string{"inframachine.provisioned"}, vs.Rules(), vs.String())
}

func TestCheckCRDBothContractLabels(t *testing.T) {
	// One API version per contract: each is checked against its own contract.
	crd := goodV1Beta1(t, "LegacyMachine")
	v2 := goodV1Beta2(t, "MemMachine").Spec.Versions[0]
	v2.Name, v2.Storage = "v1beta2", false
	crd.Spec.Versions = append(crd.Spec.Versions, v2)
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
	crd.Labels = map[string]string{
		contract.VersionLabel(contract.V1Beta1): "v1beta1",
		contract.VersionLabel(contract.V1Beta2): "v1beta2",
	}
	assert.Empty(t, lint.CheckCRD(crd).Strings())

	// Swapped labels: both versions have the other contract's shape.
	crd.Labels = map[string]string{
		contract.VersionLabel(contract.V1Beta1): "v1beta2",
		contract.VersionLabel(contract.V1Beta2): "v1beta1",
	}
	vs := lint.CheckCRD(crd)
	assert.Len(t, vs.Filter(func(v lint.Violation) bool { return v.Rule == lint.RuleCRDContractShape }), 2, vs.String())
}

func TestCheckCRDServedVersionFields(t *testing.T) {
	crds := loadCRDs(t, "bad/crds/served-version-missing-fields.yaml")
	crd := crds["PrunedMachine"]
	vs := lint.CheckCRD(crd)
	require.Equal(t, []string{lint.RuleCRDServedVersionFields}, vs.Rules(), vs.String())
	assert.Equal(t, "spec.versions[v1alpha1].schema", vs[0].Path)
	assert.Contains(t, vs[0].Message, `served API version "v1alpha1" has no status.initialization.provisioned, which "v1alpha2" (contract v1beta2) has`)
	assert.Contains(t, vs[0].Message, "prunes these fields")

	// Not served: nothing is pruned through it.
	notServed := crd.DeepCopy()
	notServed.Spec.Versions[0].Served = false
	assert.Empty(t, lint.CheckCRD(notServed))

	// A conversion webhook converts the fields: the versions do not share the stored form.
	webhook := crd.DeepCopy()
	webhook.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
	assert.Empty(t, lint.CheckCRD(webhook))

	// The old version also named by the label is checked against the contract directly.
	named := crd.DeepCopy()
	named.Labels[contract.VersionLabel(contract.V1Beta2)] = "v1alpha1_v1alpha2"
	vs = lint.CheckCRD(named)
	assert.Equal(t, []string{lint.RuleCRDContractShape}, vs.Rules(), vs.String())
}

func TestCheckCRDWithRole(t *testing.T) {
	// MemVPC plays no role by name; the caller says it is an InfraCluster.
	crd := goodV1Beta2(t, "MemCluster")
	crd.Spec.Names.Kind, crd.Spec.Names.ListKind = "MemVPC", "MemVPCList"
	assert.Empty(t, lint.CheckCRD(crd))
	assert.Empty(t, lint.CheckCRD(crd, lint.WithRole(lint.KindInfraCluster)))
	vs := lint.CheckCRD(crd, lint.WithRole(lint.KindInfraMachine))
	assert.True(t, vs.Has("inframachine.providerID"), vs.String())

	vs = lint.CheckCRD(crd, lint.WithRole("Gadget"))
	require.Len(t, vs, 1)
	assert.Equal(t, lint.RuleCRDInvalid, vs[0].Rule)
	assert.Contains(t, vs[0].Message, `unknown contract role "Gadget"`)
}

func TestCheckCRDUnknownRole(t *testing.T) {
	crd := goodV1Beta2(t, "MemCluster")
	crd.Spec.Names.Kind, crd.Spec.Names.ListKind = "MemVPC", "MemVPCList"
	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	crd.Spec.Versions[0].Subresources = nil
	delete(crd.Labels, contract.VersionLabel(contract.V1Beta2))
	assert.Empty(t, lint.CheckCRD(crd), "no role: scope, status and a missing label are the provider's business")

	crd.Labels[contract.VersionLabel(contract.V1Beta2)] = "v9"
	crd.Spec.Names.ListKind = ""
	assert.Equal(t, []string{lint.RuleCRDContractLabelVersion, lint.RuleCRDListKind}, lint.CheckCRD(crd).Rules(),
		"labels it has must still be right")
}

func TestCheckCRDInvalid(t *testing.T) {
	vs := lint.CheckCRD(nil)
	require.Len(t, vs, 1)
	assert.Equal(t, lint.RuleCRDInvalid, vs[0].Rule)

	crd := goodV1Beta2(t, "MemCluster")
	crd.Spec.Versions = nil
	vs = lint.CheckCRD(crd)
	require.Len(t, vs, 1)
	assert.Equal(t, "the CRD has no versions", vs[0].Message)
}

func TestCheckCRDBadFixtures(t *testing.T) {
	tests := map[string][]string{
		"cluster-scoped.yaml":                 {lint.RuleCRDScope},
		"no-status-subresource.yaml":          {lint.RuleCRDStatusSubresource},
		"label-unserved-version.yaml":         {lint.RuleCRDContractLabelVersion},
		"label-unknown-version.yaml":          {lint.RuleCRDContractLabelVersion},
		"no-contract-label.yaml":              {lint.RuleCRDContractLabel},
		"missing-list-kind.yaml":              {lint.RuleCRDListKind},
		"served-version-missing-fields.yaml":  {lint.RuleCRDServedVersionFields},
		"template-without-template-spec.yaml": {"template.spec"},
		"status-preserve-unknown-fields.yaml": {lint.RuleCRDUntypedField},
		"contract-unsupported.yaml":           {lint.RuleCRDContractUnsupported},
		"bootstrap-no-data-secret-name.yaml":  {"bootstrapconfig.dataSecretName"},
		"v1beta2-failure-domains-map.yaml":    {"infracluster.failureDomains"},
		"v1beta2-label-v1beta1-status.yaml":   {lint.RuleCRDContractShape},
	}
	for file, rules := range tests {
		t.Run(file, func(t *testing.T) {
			crds := loadCRDs(t, filepath.Join("bad", "crds", file))
			require.Len(t, crds, 1)
			for _, crd := range crds {
				assert.Equal(t, rules, lint.CheckCRD(crd).Rules())
			}
		})
	}
}

func BenchmarkCheckCRD(b *testing.B) {
	crd := goodV1Beta2(b, "MemCluster")
	b.ReportAllocs()
	for b.Loop() {
		if vs := lint.CheckCRD(crd); len(vs) > 0 {
			b.Fatal(vs)
		}
	}
}
