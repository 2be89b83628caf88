package lint_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
)

func goodMachinePool(t testing.TB) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd, ok := loadCRDs(t, "good/machinepool/crd.yaml")["MemMachinePool"]
	require.True(t, ok)
	return crd
}

// TestCheckCRDMachinePool: the checker rejects broken InfraMachinePool CRDs with messages that name the field.
func TestCheckCRDMachinePool(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*apiextensionsv1.CustomResourceDefinition)
		rule   string
		msg    string
	}{
		{"no providerIDList", func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties, "providerIDList")
		}, "inframachinepool.providerIDList", `has no spec.providerIDList`},
		{"replicas a string", func(c *apiextensionsv1.CustomResourceDefinition) {
			statusProps(c, 0)["replicas"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		}, "inframachinepool.replicas", `has status.replicas of type string, want integer`},
		{"no replicas", func(c *apiextensionsv1.CustomResourceDefinition) { delete(statusProps(c, 0), "replicas") },
			"inframachinepool.replicas", `has no status.replicas`},
		{"no status.ready under v1beta2", func(c *apiextensionsv1.CustomResourceDefinition) { delete(statusProps(c, 0), "ready") },
			"inframachinepool.ready", `has no status.ready`},
		{"no initialization under v1beta2", func(c *apiextensionsv1.CustomResourceDefinition) { delete(statusProps(c, 0), "initialization") },
			"inframachinepool.provisioned", `has no status.initialization.provisioned`},
		{"label names a version the CRD does not define", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels[contract.VersionLabel(contract.V1Beta2)] = "v1beta9"
		}, lint.RuleCRDContractLabelVersion, `names API version "v1beta9", which the CRD does not define`},
		{"label names a version the CRD does not serve", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Served = false
		}, lint.RuleCRDContractLabelVersion, `names API version "v1alpha1", which the CRD does not serve`},
		{"infrastructureMachineKind not a string", func(c *apiextensionsv1.CustomResourceDefinition) {
			statusProps(c, 0)["infrastructureMachineKind"] = apiextensionsv1.JSONSchemaProps{Type: "boolean"}
		}, "inframachinepool.infrastructureMachineKind", `of type boolean, want string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := goodMachinePool(t)
			require.Empty(t, lint.CheckCRD(crd), "the fixture must be clean before the mutation")
			tt.mutate(crd)
			vs := lint.CheckCRD(crd)
			require.True(t, vs.Has(tt.rule), "want rule %s in:\n%s", tt.rule, vs)
			found := vs.Filter(func(v lint.Violation) bool { return v.Rule == tt.rule && strings.Contains(v.Message, tt.msg) })
			assert.NotEmpty(t, found, "want %q in:\n%s", tt.msg, vs)
		})
	}
}

func TestMachinePoolRulesByVersion(t *testing.T) {
	rules := func(v contract.Version) map[string]string {
		out := map[string]string{}
		for _, r := range lint.Rules(lint.KindInfraMachinePool, v) {
			out[r.Rule] = r.Path.String()
		}
		return out
	}
	v1 := rules(contract.V1Beta1)
	assert.Equal(t, "status.ready", v1["inframachinepool.provisioned"])
	assert.NotContains(t, v1, "inframachinepool.ready", "v1beta1's provisioned flag is status.ready already")
	v2 := rules(contract.V1Beta2)
	assert.Equal(t, "status.initialization.provisioned", v2["inframachinepool.provisioned"])
	assert.Equal(t, "status.ready", v2["inframachinepool.ready"], "Cluster API v1.14 reads status.ready for machine pools")
	assert.Equal(t, "spec.providerIDList", v2["inframachinepool.providerIDList"])
	assert.Equal(t, "status.replicas", v2["inframachinepool.replicas"])
	assert.NotEmpty(t, lint.Rules(lint.KindInfraMachinePoolTemplate, contract.V1Beta2))
}

func TestCheckInfraMachinePool(t *testing.T) {
	pool := func(status map[string]any, ids ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "infrastructure.example.io/v1alpha1", "kind": "MemMachinePool",
			"metadata": map[string]any{"name": "pool"}, "spec": map[string]any{"providerIDList": ids}, "status": status}}
	}
	provisioned := func(replicas int64) map[string]any {
		return map[string]any{"ready": true, "initialization": map[string]any{"provisioned": true}, "replicas": replicas}
	}
	tests := []struct {
		name string
		u    *unstructured.Unstructured
		want []string // rules
	}{
		{"in step", pool(provisioned(2), "mem://i-1", "mem://i-2"), nil},
		{"replicas behind the list", pool(provisioned(1), "mem://i-1", "mem://i-2"), []string{"inframachinepool.replicas"}},
		{"not a provider ID", pool(provisioned(1), "i-1"), []string{"inframachinepool.providerIDList"}},
		{"twice", pool(provisioned(2), "mem://i-1", "mem://i-1"), []string{"inframachinepool.providerIDList"}},
		{"v1beta2 without status.ready", pool(map[string]any{"initialization": map[string]any{"provisioned": true}, "replicas": int64(0)}),
			[]string{"inframachinepool.ready"}},
		{"failure reason", pool(map[string]any{"ready": true, "initialization": map[string]any{"provisioned": true}, "replicas": int64(0),
			"failureReason": "InsufficientCapacity"}), []string{"inframachinepool.failure"}},
		{"replicas a string", pool(map[string]any{"replicas": "2"}), []string{"inframachinepool.replicas"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := lint.CheckInfraMachinePool(tt.u, contract.V1Beta2)
			var rules []string
			for _, v := range vs {
				rules = append(rules, v.Rule)
			}
			assert.Equal(t, tt.want, rules, "%s", vs)
		})
	}
}

// goodPool is an InfraMachinePool Go type of contract v1beta2; badPool has status.replicas as a string and
// no spec.providerIDList.
type goodPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ProviderIDList []string `json:"providerIDList,omitempty"`
	} `json:"spec"`
	Status struct {
		Initialization contract.InfraMachinePoolInitialization `json:"initialization,omitzero"`
		Ready          bool                                    `json:"ready,omitempty"`
		Replicas       int32                                   `json:"replicas,omitempty"`
		Conditions     []metav1.Condition                      `json:"conditions,omitempty"`
	} `json:"status"`
}

type badPool struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Status     struct {
		Initialization contract.InfraMachinePoolInitialization `json:"initialization,omitzero"`
		Ready          bool                                    `json:"ready,omitempty"`
		Replicas       string                                  `json:"replicas,omitempty"`
	} `json:"status"`
}

func TestCheckTypeMachinePool(t *testing.T) {
	assert.Empty(t, lint.CheckType(&goodPool{}, lint.KindInfraMachinePool, contract.V1Beta2).Strings())
	vs := lint.CheckType(&badPool{}, lint.KindInfraMachinePool, contract.V1Beta2)
	assert.True(t, vs.Has("inframachinepool.providerIDList"), "%s", vs)
	assert.True(t, vs.Has("inframachinepool.replicas"), "%s", vs)
	assert.Contains(t, vs.String(), "status.replicas")
}
