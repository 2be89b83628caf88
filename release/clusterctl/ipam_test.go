package clusterctl_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

func TestCheckComponentsIPAMRBAC(t *testing.T) {
	// The role creates and reads claims and reads addresses, without watch or delete: all the IPAM contract asks.
	findings, err := clusterctl.CheckFiles(readTree(t, "ipam")...)
	require.NoError(t, err)
	assert.Empty(t, findings, findings.Violations().String())
}

func TestCheckComponentsIPAMRBACCases(t *testing.T) {
	role := func(rules string) string {
		return "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: capm-manager-role, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}\nrules:\n" + rules
	}
	const (
		claimsAll = "- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddressclaims], verbs: [create, delete, get, list, patch, update, watch]}\n"
		addrsRead = "- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddresses], verbs: [get, list, watch]}\n"
	)
	tests := []struct {
		name  string
		rules string
		want  string // the missing grants, "" for none
	}{
		{name: "everything a claimer needs", rules: claimsAll + addrsRead},
		{name: "one rule for both resources", rules: "- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddressclaims, ipaddresses], verbs: [create, delete, get, list, watch]}\n"},
		{name: "verb wildcard", rules: "- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddressclaims, ipaddresses], verbs: ['*']}\n"},
		{name: "resource wildcard grants the addresses", rules: claimsAll + "- {apiGroups: [ipam.cluster.x-k8s.io], resources: ['*'], verbs: [get, list, watch]}\n"},
		{name: "no IPAM at all", rules: "- {apiGroups: [''], resources: [secrets], verbs: [get]}\n"},
		{name: "read-only wildcard role does not claim", rules: "- {apiGroups: ['*'], resources: ['*'], verbs: [get, list, watch]}\n"},
		{name: "claims without addresses", rules: claimsAll, want: "but not get on ipaddresses"},
		{name: "read-only claims", rules: "- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddressclaims], verbs: [get, list, watch]}\n" + addrsRead,
			want: "but not create on ipaddressclaims:"},
		// CAPV: claims owned by the VSphereVM are garbage-collected, so no delete; the contract only suggests watching.
		{name: "no delete, no watch: claims garbage-collected", rules: "- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddressclaims], verbs: [create, get, list, patch, update]}\n" +
			"- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddresses], verbs: [get]}\n"},
		{name: "create only", rules: "- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddressclaims], verbs: [create]}\n" + addrsRead,
			want: "but not get on ipaddressclaims:"},
		{name: "claims in another group", rules: "- {apiGroups: [ipam.example.com], resources: [ipaddressclaims], verbs: ['*']}\n"},
		{name: "resourceNames grant no list", rules: "- {apiGroups: [ipam.cluster.x-k8s.io], resources: [ipaddressclaims], resourceNames: [m1-eth0-0], verbs: ['*']}\n" + addrsRead,
			want: "but not create, get on ipaddressclaims:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			findings, err := clusterctl.CheckFiles(yamlFile(t, "infrastructure-components.yaml", componentsHead+role(tt.rules)))
			require.NoError(t, err)
			var got []string
			for _, f := range findings {
				if f.Rule == clusterctl.RuleComponentsIPAMRBAC {
					got = append(got, f.Message)
				}
			}
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Contains(t, got[0], tt.want)
		})
	}
}
