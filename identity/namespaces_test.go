package identity_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/identity"
)

func TestAllows(t *testing.T) {
	team := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"tenant": "a", corev1.LabelMetadataName: "team-a"}}}
	tests := []struct {
		name    string
		allowed *identity.AllowedNamespaces
		want    bool
		wantErr string
	}{
		{name: "nil allows none", allowed: nil},
		{name: "empty allows none (unlike CAPA)", allowed: &identity.AllowedNamespaces{}},
		{name: "every namespace, said explicitly", allowed: &identity.AllowedNamespaces{Selector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpExists}}}}, want: true},
		{name: "in list", allowed: &identity.AllowedNamespaces{NamespaceList: []string{"x", "team-a"}}, want: true},
		{name: "not in list", allowed: &identity.AllowedNamespaces{NamespaceList: []string{"team-b"}}},
		{name: "empty list matches nothing", allowed: &identity.AllowedNamespaces{NamespaceList: []string{}}},
		{name: "empty selector matches nothing", allowed: &identity.AllowedNamespaces{Selector: &metav1.LabelSelector{}}},
		{name: "selector matches", allowed: &identity.AllowedNamespaces{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "a"}}}, want: true},
		{name: "selector does not match", allowed: &identity.AllowedNamespaces{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "b"}}}},
		{name: "list or selector", allowed: &identity.AllowedNamespaces{NamespaceList: []string{"team-b"},
			Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tenant", Operator: metav1.LabelSelectorOpExists}}}}, want: true},
		{name: "invalid selector", allowed: &identity.AllowedNamespaces{Selector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tenant", Operator: "Near"}}}}, wantErr: `spec.allowedNamespaces.selector: "Near" is not a valid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := identity.Allows(tt.allowed, team)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.False(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
