package clusterctl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

func TestCheckComponentsConversionWebhook(t *testing.T) {
	findings, err := clusterctl.CheckFiles(readTree(t, filepath.Join("bad", "conversion"))...)
	require.NoError(t, err)
	tests := []struct {
		object, path string
		message      []string
	}{
		{"CustomResourceDefinition/widgets.conv.example.io", "spec.conversion.webhook.clientConfig.service.name", []string{
			`the conversion webhook names Service "webhook-service", which is not in the components (Services: capc-webhook-service)`,
			"name the manager's webhook Service or add it"}},
		{"CustomResourceDefinition/gadgets.conv.example.io", "metadata.annotations", []string{
			`annotation "cert-manager.io/inject-ca-from" names Certificate "serving-cert", which is not in the components (Certificates: capc-serving-cert)`,
			"name the webhook server's Certificate or add it"}},
		{"CustomResourceDefinition/gizmos.conv.example.io", "spec.conversion", []string{
			`versions "v1alpha1" and "v1alpha2" have different schemas but spec.conversion.strategy is None (the default)`,
			"set spec.conversion to strategy Webhook with the manager's webhook Service (path /convert) and annotate the CRD cert-manager.io/inject-ca-from: <namespace>/<certificate>",
			"or give the versions one schema"}},
	}
	require.Len(t, findings, len(tests), findings.Violations().String())
	for i, tt := range tests {
		t.Run(tt.object, func(t *testing.T) {
			f := findings[i]
			assert.Equal(t, clusterctl.RuleComponentsConversionWebhook, f.Rule)
			assert.Equal(t, tt.object, f.Object)
			assert.Equal(t, tt.path, f.Path)
			assert.Positive(t, f.Line)
			for _, m := range tt.message {
				assert.Contains(t, f.Message, m)
			}
		})
	}
}

// conversionCRD is a two-version CRD of the components of componentsHead; CONVERSION is replaced by its
// spec.conversion and SCHEMA by the properties of version v1alpha1's spec.
const conversionCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.conv.example.io
  labels: {cluster.x-k8s.io/provider: infrastructure-mem}
  annotations: {cert-manager.io/inject-ca-from: capm-system/capm-serving-cert}
spec:
  group: conv.example.io
  names: {kind: Widget, listKind: WidgetList, plural: widgets}
  scope: Namespaced
  CONVERSION
  versions:
  - {name: v1alpha1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: SCHEMA}}}}}
  - {name: v1alpha2, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: string}}}}}}}
`

// conversionParts are the Service and Certificate the conversion webhook of conversionCRD can name.
const conversionParts = `---
apiVersion: v1
kind: Service
metadata: {name: capm-webhook-service, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: capm-serving-cert, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
`

func TestCheckComponentsConversionCases(t *testing.T) {
	webhook := func(service string) string {
		return "conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {service: {name: " +
			service + ", namespace: capm-system, path: /convert}}}}"
	}
	same, other := "{size: {type: string}}", "{sizeGB: {type: integer}}"
	tests := []struct {
		name       string
		conversion string
		schema     string
		parts      string
		// unserved makes version v1alpha1 neither served nor stored.
		unserved bool
		want     int
	}{
		{name: "webhook naming the components' Service and Certificate", conversion: webhook("capm-webhook-service"), schema: other, parts: conversionParts},
		{name: "webhook with a URL", conversion: "conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: \"https://conv.example.io/convert\"}}}",
			schema: other, parts: conversionParts},
		{name: "strategy None, one schema", conversion: "conversion: {strategy: None}", schema: same},
		{name: "no conversion, one schema", schema: same},
		{name: "no conversion, different schema of a version neither served nor stored", schema: other, unserved: true},
		{name: "webhook naming a missing Service", conversion: webhook("webhook-service"), schema: other, parts: conversionParts, want: 1},
		{name: "webhook without Service and Certificate in the components", conversion: webhook("capm-webhook-service"), schema: other, want: 2},
		{name: "strategy None, different schemas", conversion: "conversion: {strategy: None}", schema: other, want: 1},
		{name: "no conversion, different schemas", schema: other, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := strings.NewReplacer("CONVERSION", tt.conversion, "SCHEMA", tt.schema).Replace(conversionCRD)
			if tt.unserved {
				crd = strings.Replace(crd, "served: true, storage: false", "served: false, storage: false", 1)
			}
			findings, err := clusterctl.CheckFiles(yamlFile(t, "infrastructure-components.yaml", componentsHead+crd+tt.parts))
			require.NoError(t, err)
			var got []string
			for _, f := range findings {
				if f.Rule == clusterctl.RuleComponentsConversionWebhook {
					got = append(got, f.String())
				}
			}
			assert.Len(t, got, tt.want, findings.Violations().String())
		})
	}
}

func TestCheckConversionOnlyInComponents(t *testing.T) {
	// controller-gen writes multi-version CRDs without spec.conversion; in config/crd/bases they are not judged,
	// since release/components adds the conversion webhook.
	crd := strings.NewReplacer("CONVERSION", "", "SCHEMA", "{sizeGB: {type: integer}}").Replace(conversionCRD)
	findings, err := clusterctl.CheckFiles(yamlFile(t, filepath.Join("config", "crd", "bases", "conv.example.io_widgets.yaml"), crd))
	require.NoError(t, err)
	assert.Empty(t, findings.Violations().Strings())
}

func TestCheckFilesCRDInstalledWithConversionWebhook(t *testing.T) {
	// A CRD whose storage version lacks the contract fields of a labelled version: without a conversion webhook
	// the API server prunes them (lint.RuleCRDStorageVersionFields), with one it does not.
	data, err := os.ReadFile(filepath.Join("..", "..", "contract", "lint", "testdata", "migration", "bad", "crds", "storage-drops-fields.yaml"))
	require.NoError(t, err)
	withNone := string(data)
	require.Contains(t, withNone, "  conversion:\n    strategy: None\n")
	generated := strings.Replace(withNone, "  conversion:\n    strategy: None\n", "", 1) // as controller-gen writes it
	installed := componentsHead + "---\n" + strings.Replace(withNone, "  conversion:\n    strategy: None\n",
		"  conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {service: {name: capm-webhook-service, namespace: capm-system, path: /convert}}}}\n", 1) +
		conversionParts
	bases := filepath.Join("crd", "bases", "crd.yaml")
	meta := "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries: [{major: 0, minor: 1, contract: v1beta1}]\n"
	tests := []struct {
		name  string
		files map[string]string
		// want is the number of crd.storage-version-fields findings about the CRD file.
		want int
	}{
		{name: "CRD file alone", files: map[string]string{bases: generated}, want: 1},
		{name: "installed by the components of its folder with a conversion webhook", files: map[string]string{
			bases: generated, "infrastructure-components.yaml": installed}},
		{name: "components of another folder", files: map[string]string{
			bases: generated, filepath.Join("other", "infrastructure-components.yaml"): installed}, want: 1},
		{name: "components above, the CRD file in a release of its own", files: map[string]string{
			"infrastructure-components.yaml": installed, filepath.Join("releases", "v0.1.0", "metadata.yaml"): meta,
			filepath.Join("releases", "v0.1.0", bases): generated}, want: 1},
		{name: "CRD file with conversion strategy None", files: map[string]string{
			bases: withNone, "infrastructure-components.yaml": installed}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []*clusterctl.YAMLFile
			for name, text := range tt.files {
				files = append(files, yamlFile(t, filepath.Join("config", name), text))
			}
			findings, err := clusterctl.CheckFiles(files...)
			require.NoError(t, err)
			got := 0
			for _, f := range findings {
				if f.Rule == lint.RuleCRDStorageVersionFields {
					assert.Equal(t, "crd.yaml", filepath.Base(f.File), "the components' own copy has the webhook")
					got++
				}
			}
			assert.Equal(t, tt.want, got, findings.Violations().String())
		})
	}
}
