package lint

import (
	"github.com/capkit/capkit/contract"

	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allKinds = []Kind{KindInfraCluster, KindInfraMachine, KindBootstrapConfig, KindInfraClusterTemplate, KindInfraMachineTemplate, KindBootstrapConfigTemplate}

func TestRulesAreWellFormed(t *testing.T) {
	types := []string{"boolean", "string", "integer", "number", "object", "array"}
	for _, v := range contract.Versions {
		for _, k := range allKinds {
			rules := Rules(k, v)
			require.NotEmpty(t, rules, "%s %s", k, v)
			seen := map[string]bool{}
			var check func(r FieldRule)
			check = func(r FieldRule) {
				assert.NotEmpty(t, r.Rule)
				assert.False(t, seen[r.Rule], "rule %q appears twice in %s %s", r.Rule, k, v)
				seen[r.Rule] = true
				assert.NotEmpty(t, r.Path, r.Rule)
				assert.Contains(t, types, r.Type, r.Rule)
				assert.NotEmpty(t, r.Hint, r.Rule)
				if len(r.Items) > 0 {
					assert.Contains(t, []string{"array", "object"}, r.Type, "%s has items", r.Rule)
				}
				for _, item := range r.Items {
					check(item)
				}
			}
			for _, r := range rules {
				check(r)
			}
		}
	}
	assert.Nil(t, Rules("Widget", contract.V1Beta2))
}

// The rules table and the accessors must agree, or checkers and scopes would disagree about the contract.
func TestRulesMatchAccessors(t *testing.T) {
	for _, v := range contract.Versions {
		paths := map[string]contract.Path{
			"infracluster.controlPlaneEndpoint": contract.InfraCluster(v).ControlPlaneEndpoint().Path(),
			"infracluster.provisioned":          contract.InfraCluster(v).Provisioned().Path(),
			"infracluster.failureDomains":       contract.InfraCluster(v).FailureDomains().Path(),
			"infracluster.conditions":           contract.InfraCluster(v).Conditions().Path(),
			"inframachine.providerID":           contract.InfraMachine(v).ProviderID().Path(),
			"inframachine.provisioned":          contract.InfraMachine(v).Provisioned().Path(),
			"inframachine.addresses":            contract.InfraMachine(v).Addresses().Path(),
			"inframachine.failureDomain":        contract.InfraMachine(v).FailureDomain().Path(),
			"inframachine.conditions":           contract.InfraMachine(v).Conditions().Path(),
			"bootstrapconfig.dataSecretName":    contract.BootstrapConfig(v).DataSecretName().Path(),
			"bootstrapconfig.dataSecretCreated": contract.BootstrapConfig(v).DataSecretCreated().Path(),
			"bootstrapconfig.conditions":        contract.BootstrapConfig(v).Conditions().Path(),
			"template.spec":                     contract.TemplateSpec().Path(),
		}
		for _, k := range allKinds {
			for _, r := range Rules(k, v) {
				if want, ok := paths[r.Rule]; ok {
					assert.Equal(t, want, r.Path, "%s %s", r.Rule, v)
				}
			}
		}
	}
}

func TestRulesDifferBetweenVersions(t *testing.T) {
	find := func(k Kind, v contract.Version, rule string) FieldRule {
		i := slices.IndexFunc(Rules(k, v), func(r FieldRule) bool { return r.Rule == rule })
		require.GreaterOrEqual(t, i, 0, rule)
		return Rules(k, v)[i]
	}
	assert.Equal(t, "array", find(KindInfraCluster, contract.V1Beta2, "infracluster.failureDomains").Type)
	assert.Equal(t, "object", find(KindInfraCluster, contract.V1Beta1, "infracluster.failureDomains").Type)
	assert.True(t, find(KindInfraCluster, contract.V1Beta2, "infracluster.provisioned").Required)
	assert.False(t, find(KindInfraCluster, contract.V1Beta2, "infracluster.conditions").Required)
}
