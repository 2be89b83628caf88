package v1beta2_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
)

func TestProviderID(t *testing.T) {
	for _, podID := range []string{"default/demo-cp-0/0b7d5d6c-5ab2-4f2b-9c1e-7d0c1f0e2a3b", "ns/m/u"} {
		t.Run(podID, func(t *testing.T) {
			providerID := v1beta2.ProviderID(podID)
			assert.Equal(t, "podcloud://"+podID, providerID)
			got, err := v1beta2.PodIDFromProviderID(providerID)
			require.NoError(t, err)
			assert.Equal(t, podID, got)
		})
	}
}

func TestPodIDFromProviderIDRejects(t *testing.T) {
	for _, tc := range []struct {
		name, providerID, wantInMsg string
	}{
		{"empty", "", `want prefix "podcloud://"`},
		{"other provider", "aws:///us-east-1a/i-123", `cannot parse provider ID "aws:///us-east-1a/i-123": want prefix "podcloud://"`},
		{"prefix case", "PodCloud://ns/name/uid", `want prefix "podcloud://"`},
		{"nothing after the prefix", "podcloud://", `want "podcloud://NAMESPACE/NAME/UID"`},
		{"two parts", "podcloud://ns/name", `want "podcloud://NAMESPACE/NAME/UID"`},
		{"four parts", "podcloud://ns/name/uid/x", `want "podcloud://NAMESPACE/NAME/UID"`},
		{"empty namespace", "podcloud:///name/uid", `want "podcloud://NAMESPACE/NAME/UID"`},
		{"empty name", "podcloud://ns//uid", `want "podcloud://NAMESPACE/NAME/UID"`},
		{"empty UID", "podcloud://ns/name/", `want "podcloud://NAMESPACE/NAME/UID"`},
		{"space", "podcloud://ns/na me/uid", `want "podcloud://NAMESPACE/NAME/UID"`},
		{"newline", "podcloud://ns/name/uid\n", `want "podcloud://NAMESPACE/NAME/UID"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := v1beta2.PodIDFromProviderID(tc.providerID)
			require.ErrorIs(t, err, v1beta2.ErrInvalidProviderID)
			assert.Empty(t, id)
			assert.Contains(t, err.Error(), tc.wantInMsg)
		})
	}
}
