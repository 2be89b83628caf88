package capienv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	clusterctllog "sigs.k8s.io/cluster-api/cmd/clusterctl/log"

	"github.com/capkit/capkit/test/internal/capienv"
)

func TestClusterctlLogKeepsEveryLineAndInfoTheFirstLevel(t *testing.T) {
	log := capienv.CaptureClusterctlLog()
	clusterctllog.Log.Info("Performing move...")
	clusterctllog.Log.V(1).Info("Creating Cluster", "name", "wl")
	clusterctllog.Log.V(5).Info("not kept: above verbosity 1")
	assert.Equal(t, `"level"=0 "msg"="Performing move..."`, log.Info())
	assert.Equal(t, `"level"=0 "msg"="Performing move..."`+"\n"+`"level"=1 "msg"="Creating Cluster" "name"="wl"`, log.String())
}

func TestWriteKubeconfigWritesAFileClusterctlReads(t *testing.T) {
	dir := t.TempDir()
	path, err := capienv.WriteKubeconfig(dir, envtestLikeConfig(), "source")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "source.kubeconfig"), path)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "it holds a client key")
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	require.NoError(t, err)
	assert.Equal(t, "https://127.0.0.1:6443", cfg.Host)
}

func TestInventoryAddsTheInfrastructureProviderWithItsCRDs(t *testing.T) {
	providers, err := capienv.Inventory(capienv.InventoryProvider{Name: "vspherecloud", Type: clusterctlv1.InfrastructureProviderType,
		Version: "v0.2.0", Namespace: "vspherecloud-system"}, filepath.Join("..", "..", "..", "examples", "vspherecloud", "config", "crd", "bases"))
	require.NoError(t, err)
	require.Len(t, providers, 3)
	assert.Equal(t, "cluster-api", providers[0].Name)
	assert.Equal(t, "kubeadm", providers[1].Name)
	assert.Equal(t, "infrastructure-vspherecloud", providers[2].ManifestLabel())
	assert.ElementsMatch(t, []string{"vsphereclusteridentities.infrastructure.vspherecloud.capkit.io", "vsphereclusters.infrastructure.vspherecloud.capkit.io",
		"vspheremachines.infrastructure.vspherecloud.capkit.io", "vspheremachinetemplates.infrastructure.vspherecloud.capkit.io"}, providers[2].CRDs,
		"every CRD of the folder")
	_, err = capienv.Inventory(capienv.InventoryProvider{Name: "x", Type: clusterctlv1.InfrastructureProviderType}, filepath.Join(t.TempDir(), "none"))
	assert.ErrorContains(t, err, `provider "infrastructure-x"`)
}
