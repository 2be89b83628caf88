package capienv_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/capkit/capkit/test/internal/capienv"
)

const manifest = `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /mutate-x}
  name: default.x
  sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /validate-x}
  name: validation.x
  sideEffects: None
`

func TestWebhookConfigurationsPointAtTheLocalManager(t *testing.T) {
	objs, err := capienv.WebhookConfigurations([]byte(manifest), capienv.Core, 9443, []byte("ca"))
	require.NoError(t, err)
	require.Len(t, objs, 2)

	m := objs[0].(*admissionregistrationv1.MutatingWebhookConfiguration)
	assert.Equal(t, "capkit-core-mutating-webhook-configuration", m.Name)
	assert.Nil(t, m.Webhooks[0].ClientConfig.Service)
	assert.Equal(t, "https://127.0.0.1:9443/mutate-x", *m.Webhooks[0].ClientConfig.URL)
	assert.Equal(t, []byte("ca"), m.Webhooks[0].ClientConfig.CABundle)

	v := objs[1].(*admissionregistrationv1.ValidatingWebhookConfiguration)
	assert.Equal(t, "capkit-core-validating-webhook-configuration", v.Name)
	assert.Equal(t, "https://127.0.0.1:9443/validate-x", *v.Webhooks[0].ClientConfig.URL)
}

func TestWebhookConfigurationsErrors(t *testing.T) {
	tests := []struct {
		name, manifest, wantErr string
	}{
		{name: "no path", wantErr: `webhook "v"`, manifest: "kind: ValidatingWebhookConfiguration\nmetadata: {name: x}\nwebhooks:\n- name: v\n  clientConfig: {url: https://x}\n"},
		{name: "unexpected kind", wantErr: `"Service"`, manifest: "kind: Service\nmetadata: {name: x}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := capienv.WebhookConfigurations([]byte(tt.manifest), capienv.Core, 1, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestRealWebhookManifestsAllGetURLs(t *testing.T) {
	dir, err := capienv.ModuleDir("")
	require.NoError(t, err)
	for _, c := range []capienv.Component{capienv.Core, capienv.KubeadmBootstrap} {
		b, err := os.ReadFile(c.WebhookManifest(dir))
		require.NoError(t, err)
		objs, err := capienv.WebhookConfigurations(b, c, 1234, []byte("ca"))
		require.NoError(t, err, c.Name)
		assert.NotEmpty(t, objs, c.Name)
	}
}
