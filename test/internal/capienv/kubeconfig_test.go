package capienv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/test/internal/capienv"
)

func envtestLikeConfig() *rest.Config {
	return &rest.Config{Host: "https://127.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{
		CAData: []byte("ca"), CertData: []byte("cert"), KeyData: []byte("key"),
	}}
}

func TestKubeconfigRoundTrips(t *testing.T) {
	b, err := capienv.Kubeconfig(envtestLikeConfig(), "")
	require.NoError(t, err)
	got, err := clientcmd.RESTConfigFromKubeConfig(b)
	require.NoError(t, err)
	assert.Equal(t, "https://127.0.0.1:6443", got.Host)
	assert.Equal(t, []byte("ca"), got.CAData)
	assert.Equal(t, []byte("cert"), got.CertData)
	assert.Equal(t, []byte("key"), got.KeyData)

	_, err = capienv.Kubeconfig(&rest.Config{}, "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no host")
}

func TestKubeconfigSecretIsWhatClusterAPIReads(t *testing.T) {
	s, err := capienv.KubeconfigSecret("ns", "wl", envtestLikeConfig())
	require.NoError(t, err)
	assert.Equal(t, "ns", s.Namespace)
	assert.Equal(t, "wl-kubeconfig", s.Name)
	assert.Equal(t, "wl", s.Labels[clusterv1.ClusterNameLabel], "the managers' Secret cache only holds labelled Secrets")
	assert.Equal(t, clusterv1.ClusterSecretType, s.Type)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data["value"])
	require.NoError(t, err)
	assert.Equal(t, "https://127.0.0.1:6443", cfg.Host)

	_, err = capienv.KubeconfigSecret("", "wl", envtestLikeConfig())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `namespace ""`)
}
