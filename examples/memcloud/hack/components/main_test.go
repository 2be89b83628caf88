package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
)

// configDir is memcloud's config folder, relative to this package.
const configDir = "../../config"

func TestCommittedComponentsAreFresh(t *testing.T) {
	want, err := Build(configDir)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(configDir, "infrastructure-components.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "infrastructure-components.yaml is stale: run make generate")
}

func TestReleaseFilesFollowContract(t *testing.T) {
	var files []*lint.YAMLFile
	for _, pattern := range []string{"metadata.yaml", "infrastructure-components.yaml", "templates/*.yaml"} {
		names, err := filepath.Glob(filepath.Join(configDir, pattern))
		require.NoError(t, err)
		require.NotEmpty(t, names, pattern)
		for _, n := range names {
			f, err := lint.ReadYAMLFile(n)
			require.NoError(t, err)
			files = append(files, f)
		}
	}
	findings, err := lint.CheckFiles(files...)
	require.NoError(t, err)
	var lines []string
	for _, f := range findings {
		lines = append(lines, f.String())
	}
	assert.Empty(t, lines)
}

func TestComponentsContent(t *testing.T) {
	data, err := Build(configDir)
	require.NoError(t, err)
	f, err := lint.ReadYAML(bytes.NewReader(data), "infrastructure-components.yaml")
	require.NoError(t, err)

	byKind := map[string][]string{}
	for _, d := range f.Documents {
		u := d.Object
		assert.Equal(t, "infrastructure-memcloud", u.GetLabels()[contract.ProviderLabel], d.ObjectRef())
		if !clusterScoped(u.Object) {
			assert.Equal(t, "memcloud-system", u.GetNamespace(), d.ObjectRef())
		}
		byKind[u.GetKind()] = append(byKind[u.GetKind()], u.GetName())
	}
	assert.Equal(t, []string{"memcloud-system"}, byKind["Namespace"])
	assert.Len(t, byKind["CustomResourceDefinition"], 4)
	assert.Equal(t, []string{"memcloud-controller-manager"}, byKind["Deployment"])
	assert.ElementsMatch(t, []string{"memcloud-manager-role", "memcloud-capi-aggregated-role"}, byKind["ClusterRole"])

	for _, d := range f.Documents {
		u := d.Object
		switch u.GetKind() {
		case "ClusterRole":
			if u.GetName() == "memcloud-capi-aggregated-role" {
				assert.Equal(t, "true", u.GetLabels()["cluster.x-k8s.io/aggregate-to-manager"],
					"Cluster API needs access to memcloud's group through the aggregated manager role")
			}
		case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			hooks := u.Object["webhooks"].([]any)
			require.Len(t, hooks, 4, u.GetKind())
			for _, h := range hooks {
				svc, ok := nested(h, "clientConfig", "service")
				require.True(t, ok)
				assert.Equal(t, "memcloud-webhook-service", svc["name"])
				assert.Equal(t, "memcloud-system", svc["namespace"])
			}
			assert.Equal(t, "memcloud-system/memcloud-serving-cert", u.GetAnnotations()["cert-manager.io/inject-ca-from"])
		}
	}
}

func TestBuildFailsWithoutGeneratedFiles(t *testing.T) {
	dir := t.TempDir()
	_, err := Build(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "run controller-gen first")
}

func TestBuildRejectsUnexpectedRole(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"crd/bases", "rbac", "webhook"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
	}
	copyFile(t, filepath.Join(configDir, "crd/bases/infrastructure.memcloud.capkit.io_memclusters.yaml"), filepath.Join(dir, "crd/bases/c.yaml"))
	copyFile(t, filepath.Join(configDir, "webhook/manifests.yaml"), filepath.Join(dir, "webhook/manifests.yaml"))
	role := "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: other-role\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rbac/role.yaml"), []byte(role), 0o644))
	_, err := Build(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `ClusterRole/other-role`)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}
