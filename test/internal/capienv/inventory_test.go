package capienv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/cluster"
	clusterctlconfig "sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"

	"github.com/capkit/capkit/test/internal/capienv"
)

func TestInventoryProviderObjectIsWhatClusterctlInitWrites(t *testing.T) {
	p := capienv.InventoryProvider{Name: "memcloud", Type: clusterctlv1.InfrastructureProviderType, Version: "v0.1.0", Namespace: "memcloud-system"}
	o := p.Object()
	assert.Equal(t, "infrastructure-memcloud", o.Name)
	assert.Equal(t, "memcloud-system/infrastructure-memcloud", o.InstanceName())
	assert.Equal(t, clusterctlv1.InfrastructureProviderType, o.GetProviderType())
	assert.Equal(t, "v0.1.0", o.Version)
	assert.Equal(t, map[string]string{"clusterctl.cluster.x-k8s.io": "", "cluster.x-k8s.io/provider": "infrastructure-memcloud",
		"clusterctl.cluster.x-k8s.io/core": "inventory"}, o.Labels)
	assert.Equal(t, map[string]string{"clusterctl.cluster.x-k8s.io": "", "cluster.x-k8s.io/provider": "infrastructure-memcloud"}, p.Labels())
}

func TestInstallInventoryRejectsIncompleteProviders(t *testing.T) {
	tests := []struct {
		name    string
		p       capienv.InventoryProvider
		wantErr string
	}{
		{name: "no type", p: capienv.InventoryProvider{Name: "x", Namespace: "x-system", Version: "v1.0.0"}, wantErr: `provider "x" of type ""`},
		{name: "no namespace", p: capienv.InventoryProvider{Name: "x", Type: clusterctlv1.CoreProviderType, Version: "v1.0.0"}, wantErr: `namespace ""`},
		{name: "bad version", p: capienv.InventoryProvider{Name: "x", Type: clusterctlv1.CoreProviderType, Namespace: "x-system", Version: "1.0"}, wantErr: `version "1.0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := capienv.InstallInventory(t.Context(), nil, tt.p) // rejected before any request
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestInventoryCRDIsClusterctls(t *testing.T) {
	crd, err := capienv.InventoryCRD()
	require.NoError(t, err)
	assert.Equal(t, capienv.InventoryCRDName, crd.Name)
	assert.Equal(t, "Provider", crd.Spec.Names.Kind)
	require.Len(t, crd.Spec.Versions, 1)
	assert.Equal(t, clusterctlv1.GroupVersion.Version, crd.Spec.Versions[0].Name)
	assert.Equal(t, "inventory", crd.Labels["clusterctl.cluster.x-k8s.io/core"])
	assert.NotContains(t, crd.Labels, "clusterctl.cluster.x-k8s.io", "Provider objects are not moved")
}

func TestClusterAPIProvidersNameComponentsAsClusterctl(t *testing.T) {
	version, err := capienv.ModuleVersion("")
	require.NoError(t, err)
	assert.Regexp(t, `^v1\.\d+\.\d+`, version)

	ps, err := capienv.ClusterAPIProviders("", version, capienv.Core, capienv.KubeadmBootstrap, capienv.KubeadmControlPlaneCRDs)
	require.NoError(t, err)
	require.Len(t, ps, 3)
	var got []string
	for _, p := range ps {
		got = append(got, p.Namespace+"/"+p.ManifestLabel())
		assert.Equal(t, version, p.Version)
	}
	assert.Equal(t, []string{"capi-system/cluster-api", "capi-kubeadm-bootstrap-system/bootstrap-kubeadm",
		"capi-kubeadm-control-plane-system/control-plane-kubeadm"}, got)
	assert.Contains(t, ps[0].CRDs, "clusters.cluster.x-k8s.io")
	assert.Contains(t, ps[0].CRDs, "machinedeployments.cluster.x-k8s.io")
	assert.Contains(t, ps[1].CRDs, "kubeadmconfigs.bootstrap.cluster.x-k8s.io")
	assert.Contains(t, ps[2].CRDs, "kubeadmcontrolplanes.controlplane.cluster.x-k8s.io")

	_, err = capienv.ClusterAPIProviders("", version, capienv.Component{Name: "other", ConfigDir: "exp/other"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"exp/other"`)
}

// TestInstallInventoryIsReadByClusterctl installs the inventory in a real API server and reads it back with
// clusterctl's own inventory client, the one `clusterctl move` checks both management clusters with.
func TestInstallInventoryIsReadByClusterctl(t *testing.T) {
	ctx := t.Context()
	env, err := capienv.NewEnvironment(nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, env.Stop()) })

	ps, err := capienv.ClusterAPIProviders("", "v1.14.2", capienv.Core, capienv.KubeadmBootstrap)
	require.NoError(t, err)
	infra := capienv.InventoryProvider{Name: "example", Type: clusterctlv1.InfrastructureProviderType, Version: "v0.1.0", Namespace: "example-system"}
	require.NoError(t, capienv.InstallInventory(ctx, env.Client, append(ps, infra)...))

	kubeconfig, err := capienv.Kubeconfig(env.Config, "inventory")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, kubeconfig, 0o600))
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // clusterctl's own configuration, empty
	cfg, err := clusterctlconfig.New(ctx, "")
	require.NoError(t, err)
	inv := cluster.New(cluster.Kubeconfig{Path: path}, cfg).ProviderInventory()
	require.NoError(t, inv.CheckCAPIContract(ctx), "the Cluster CRD stores the contract this clusterctl uses")
	require.NoError(t, inv.EnsureCustomResourceDefinitions(ctx), "clusterctl finds its CRD installed")
	require.NoError(t, inv.CheckSingleProviderInstance(ctx))
	list, err := inv.List(ctx)
	require.NoError(t, err)
	got := map[string]string{}
	for _, p := range list.Items {
		got[p.InstanceName()] = p.Version
	}
	assert.Equal(t, map[string]string{"capi-system/cluster-api": "v1.14.2", "capi-kubeadm-bootstrap-system/bootstrap-kubeadm": "v1.14.2",
		"example-system/infrastructure-example": "v0.1.0"}, got)
	name, err := inv.GetDefaultProviderName(ctx, clusterctlv1.InfrastructureProviderType)
	require.NoError(t, err)
	assert.Equal(t, "example", name)

	// The CRDs clusterctl move discovers: those with its label; each keeps its contract labels.
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	require.NoError(t, env.Client.List(ctx, crds, client.HasLabels{clusterctlv1.ClusterctlLabel}))
	labelled := map[string]map[string]string{}
	for _, crd := range crds.Items {
		labelled[crd.Name] = crd.Labels
	}
	assert.Len(t, labelled, len(ps[0].CRDs)+len(ps[1].CRDs))
	assert.Equal(t, "cluster-api", labelled["clusters.cluster.x-k8s.io"][clusterv1.ProviderNameLabel])
	assert.Equal(t, "bootstrap-kubeadm", labelled["kubeadmconfigs.bootstrap.cluster.x-k8s.io"][clusterv1.ProviderNameLabel])
	assert.Equal(t, "v1beta2", labelled["kubeadmconfigs.bootstrap.cluster.x-k8s.io"]["cluster.x-k8s.io/v1beta2"], "kustomize's labels are kept")
	assert.NotContains(t, labelled, capienv.InventoryCRDName)

	// Again, with a newer core: the Provider is updated, nothing else changes.
	ps[0].Version = "v1.14.3"
	require.NoError(t, capienv.InstallInventory(ctx, env.Client, ps[0]))
	v, err := inv.GetProviderVersion(ctx, "cluster-api", clusterctlv1.CoreProviderType)
	require.NoError(t, err)
	assert.Equal(t, "v1.14.3", v)
	require.NoError(t, inv.CheckSingleProviderInstance(ctx))

	// A provider whose CRD is not installed.
	missing := infra
	missing.CRDs = []string{"widgets.infrastructure.example.com"}
	err = capienv.InstallInventory(ctx, env.Client, missing)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"widgets.infrastructure.example.com"`)
}
