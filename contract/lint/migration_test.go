package lint_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// migration is the folder of the fixtures of the v1beta1 -> v1beta2 migration mistakes (issue 26).
var migration = filepath.Join("testdata", "migration")

// migrationCRD reads the one CRD of a migration fixture.
func migrationCRD(t *testing.T, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	f, err := clusterctl.ReadYAMLFile(filepath.Join(migration, path))
	require.NoError(t, err)
	require.Len(t, f.Documents, 1)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(f.Documents[0].Object.Object, crd))
	return crd
}

// TestMigrationMistakes checks that each migration mistake yields exactly one violation, whose message names the
// CRD, the version, the field and the fix.
func TestMigrationMistakes(t *testing.T) {
	tests := []struct {
		file, rule, path string
		message          []string
	}{
		{"bad/crds/label-without-fields.yaml", "inframachine.provisioned", "status.initialization.provisioned", []string{
			`API version "v1beta2" (contract v1beta2) has no status.initialization.provisioned`,
			"add status.initialization.provisioned to version v1beta2's schema (embed contract.InfraMachineInitialization as status.initialization"}},
		{"bad/crds/label-only-v1beta1-status.yaml", lint.RuleCRDContractShape, "spec.versions[v1beta1].schema.openAPIV3Schema.properties.status", []string{
			"label declares contract v1beta2 but status has v1beta1 shape: status.ready present, status.initialization.provisioned missing",
			"fix in version v1beta1's schema: status.initialization.provisioned: add it (embed contract.InfraClusterInitialization"}},
		{"bad/crds/storage-drops-fields.yaml", lint.RuleCRDStorageVersionFields, "spec.versions[v1beta1].schema", []string{
			`storage version "v1beta1" has no status.initialization.provisioned, which the labelled versions write: status.initialization.provisioned (version "v1beta2", contract v1beta2)`,
			`set the storage version to "v1beta2" (storage: true, the +kubebuilder:storageversion marker on its Go type) or add status.initialization.provisioned to version "v1beta1"'s schema`}},
		{"bad/crds/label-names-missing-version.yaml", lint.RuleCRDContractLabelVersion, "metadata.labels[cluster.x-k8s.io/v1beta2]", []string{
			`names API version "v1beta3", which the CRD does not define (versions: ["v1beta2"]): remove v1beta3 from the label or add it to spec.versions`}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			crd := migrationCRD(t, tt.file)
			vs := lint.CheckCRD(crd)
			require.Len(t, vs, 1, vs.String())
			assert.Equal(t, tt.rule, vs[0].Rule)
			assert.Equal(t, "CustomResourceDefinition/"+crd.Name, vs[0].Object)
			assert.Equal(t, tt.path, vs[0].Path)
			for _, m := range tt.message {
				assert.Contains(t, vs[0].Message, m)
			}
		})
	}
	t.Run("bad/release", func(t *testing.T) {
		var files []*clusterctl.YAMLFile
		for _, name := range []string{"crds.yaml", "metadata.yaml"} {
			f, err := clusterctl.ReadYAMLFile(filepath.Join(migration, "bad", "release", name))
			require.NoError(t, err)
			files = append(files, f)
		}
		findings, err := clusterctl.CheckFiles(files...)
		require.NoError(t, err)
		require.Len(t, findings, 1, findings.Violations().String())
		assert.Equal(t, clusterctl.RuleMetadataCRDContract, findings[0].Rule)
		assert.Equal(t, "CustomResourceDefinition/oldmachines.infrastructure.migration.example.io", findings[0].Object)
		assert.Contains(t, findings[0].Message, `label the CRD "cluster.x-k8s.io/v1beta2: v1beta1" once its schema has the fields of contract v1beta2`)
		assert.Contains(t, findings[0].Message, "or set contract: v1beta1 for release series v2.0 in metadata.yaml")
	})
}

func TestMigrationGoodTwoVersions(t *testing.T) {
	crd := migrationCRD(t, "good/two-versions.yaml")
	assert.Empty(t, lint.CheckCRD(crd).Strings(), "conversion None")
	webhook := crd.DeepCopy()
	webhook.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
	assert.Empty(t, lint.CheckCRD(webhook).Strings(), "conversion Webhook")
}

// TestCheckCRDStorageVersionFields covers crd.storage-version-fields: with conversion strategy None, the storage
// version must hold every contract field a labelled version has.
func TestCheckCRDStorageVersionFields(t *testing.T) {
	good := func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
		return migrationCRD(t, "good/two-versions.yaml")
	}
	bad := func(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
		return migrationCRD(t, "bad/crds/storage-drops-fields.yaml")
	}
	tests := []struct {
		name    string
		crd     func(*testing.T) *apiextensionsv1.CustomResourceDefinition
		edit    func(*apiextensionsv1.CustomResourceDefinition)
		rules   []string
		message string
	}{
		{name: "storage v1beta2 holds both contracts' fields", crd: good},
		{name: "storage v1beta1 without initialization", crd: good, edit: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = true, false
		}, rules: []string{lint.RuleCRDStorageVersionFields},
			message: `storage version "v1beta1" has no status.initialization.provisioned, which the labelled versions write: status.initialization.provisioned (version "v1beta2", contract v1beta2); with conversion strategy None the API server prunes every object it stores with the storage version's schema, so these fields are lost: set the storage version to "v1beta2"`},
		{name: "storage v1beta2 without the v1beta1 flag", crd: good, edit: func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(c.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["status"].Properties, "ready")
		}, rules: []string{lint.RuleCRDStorageVersionFields},
			message: `storage version "v1beta2" has no status.ready, which the labelled versions write: status.ready (version "v1beta1", contract v1beta1); with conversion strategy None the API server prunes every object it stores with the storage version's schema, so these fields are lost: add status.ready to version "v1beta2"'s schema`},
		{name: "conversion webhook: the webhook maps the fields", crd: bad, edit: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		}},
		{name: "no conversion stanza is None", crd: bad, edit: func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Conversion = nil },
			rules: []string{lint.RuleCRDStorageVersionFields}},
		{name: "an unserved storage version still prunes", crd: bad, edit: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Served = false
			c.Labels = map[string]string{contract.VersionLabel(contract.V1Beta2): "v1beta2"}
		}, rules: []string{lint.RuleCRDStorageVersionFields}},
		{name: "a storage version labelled for the contract gets the field rule instead", crd: bad, edit: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels = map[string]string{contract.VersionLabel(contract.V1Beta2): "v1beta1_v1beta2"}
		}, rules: []string{lint.RuleCRDContractShape}},
		{name: "a field no labelled version has is the field rule's", crd: bad, edit: func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(c.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["status"].Properties, "initialization")
		}, rules: []string{lint.RuleCRDContractShape}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := tt.crd(t)
			if tt.edit != nil {
				tt.edit(crd)
			}
			vs := lint.CheckCRD(crd)
			if tt.rules == nil {
				assert.Empty(t, vs.Strings())
				return
			}
			assert.Equal(t, tt.rules, vs.Rules(), vs.String())
			assert.Len(t, vs, len(tt.rules), vs.String())
			if tt.message != "" {
				require.NotEmpty(t, vs)
				assert.Contains(t, vs[0].Message, tt.message)
			}
		})
	}
}

// TestCheckCRDLabelVersionFix checks that crd.contract-label-version names the fix for an unserved version.
func TestCheckCRDLabelVersionFix(t *testing.T) {
	crd := migrationCRD(t, "good/two-versions.yaml")
	crd.Spec.Versions[0].Served = false
	vs := lint.CheckCRD(crd)
	require.Len(t, vs, 1, vs.String())
	assert.Equal(t, lint.RuleCRDContractLabelVersion, vs[0].Rule)
	assert.Contains(t, vs[0].Message, `names API version "v1beta1", which the CRD does not serve: remove v1beta1 from the label or serve it (served: true)`)
}
