package webhooks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/identity"
)

func TestMemClusterIdentityWebhook(t *testing.T) {
	tests := []struct {
		name     string
		spec     v1beta2.MemClusterIdentitySpec
		wantErr  string
		wantWarn bool
	}{
		{name: "allowed by list", spec: v1beta2.MemClusterIdentitySpec{SecretName: "s", AllowedNamespaces: &identity.AllowedNamespaces{NamespaceList: []string{"team-a"}}}},
		{name: "no namespace allowed warns", spec: v1beta2.MemClusterIdentitySpec{SecretName: "s"}, wantWarn: true},
		{name: "empty allowedNamespaces warns", spec: v1beta2.MemClusterIdentitySpec{SecretName: "s", AllowedNamespaces: &identity.AllowedNamespaces{}}, wantWarn: true},
		{name: "no Secret", spec: v1beta2.MemClusterIdentitySpec{AllowedNamespaces: &identity.AllowedNamespaces{NamespaceList: []string{"a"}}},
			wantErr: "spec.secretName: Required value: must name the credentials Secret"},
		{name: "bad selector", spec: v1beta2.MemClusterIdentitySpec{SecretName: "s", AllowedNamespaces: &identity.AllowedNamespaces{Selector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tenant", Operator: "Near"}}}}},
			wantErr: `spec.allowedNamespaces.selector: Invalid value: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := &v1beta2.MemClusterIdentity{ObjectMeta: metav1.ObjectMeta{Name: "id"}, Spec: tt.spec}
			for _, call := range []func() (admission.Warnings, error){
				func() (admission.Warnings, error) {
					return webhooks.MemClusterIdentity{}.ValidateCreate(context.Background(), id)
				},
				func() (admission.Warnings, error) {
					return webhooks.MemClusterIdentity{}.ValidateUpdate(context.Background(), id, id)
				},
			} {
				warnings, err := call()
				if tt.wantErr != "" {
					require.ErrorContains(t, err, tt.wantErr)
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, tt.wantWarn, len(warnings) > 0, "%v", warnings)
			}
		})
	}
}
