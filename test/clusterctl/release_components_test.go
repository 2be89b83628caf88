package clusterctl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/repository"
	"sigs.k8s.io/cluster-api/util/container"

	capkitclusterctl "github.com/capkit/capkit/release/clusterctl"
)

// TestExampleComponentsWithClusterctl reads each example's infrastructure-components.yaml with clusterctl's
// library as clusterctl init does (a local repository, its components client: variable substitution, the image
// overrides that parse every image, the default target namespace, the namespace fixes), with no variable set, so
// that every default applies, and no target namespace given.
func TestExampleComponentsWithClusterctl(t *testing.T) {
	for _, name := range []string{"memcloud", "podcloud", "vspherecloud"} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			data, err := os.ReadFile(filepath.Join("..", "..", "examples", name, "config", "infrastructure-components.yaml"))
			require.NoError(t, err)
			// clusterctl's local repository layout: {basepath}/{provider-label}/{version}/{components file}.
			file := filepath.Join(t.TempDir(), "infrastructure-"+name, "v0.2.0", "infrastructure-components.yaml")
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
			require.NoError(t, os.WriteFile(file, data, 0o644))

			reader, err := config.NewMemoryReader().AddProvider(name, clusterctlv1.InfrastructureProviderType, file)
			require.NoError(t, err)
			cfg, err := config.New(ctx, "", config.InjectReader(reader)) // no variables, no image overrides
			require.NoError(t, err)
			provider, err := cfg.Providers().Get(name, clusterctlv1.InfrastructureProviderType)
			require.NoError(t, err)
			repo, err := repository.New(ctx, provider, cfg)
			require.NoError(t, err)

			comps, err := repo.Components().Get(ctx, repository.ComponentsOptions{})
			require.NoError(t, err, "clusterctl init accepts the components with default variables")
			assert.Equal(t, name+"-system", comps.TargetNamespace())
			assert.Contains(t, comps.Variables(), strings.ToUpper(name)+"_IMAGE")
			assert.Equal(t, []string{"docker.io/capkit/" + name + ":dev"}, comps.Images())
			for _, o := range comps.Objs() {
				if o.GetNamespace() != "" {
					assert.Equal(t, name+"-system", o.GetNamespace(), "%s/%s", o.GetKind(), o.GetName())
				}
			}

			f, err := capkitclusterctl.ReadYAMLFile(file)
			require.NoError(t, err)
			findings, err := capkitclusterctl.CheckFiles(f)
			require.NoError(t, err)
			assert.Empty(t, findings.Violations().Strings(), "capkit check agrees")
		})
	}
}

// TestCanonicalImageMatchesClusterctl runs image references through capkit's CanonicalImage, which the
// components.image rule uses, and through the parser clusterctl init uses (container.ImageFromString): clusterctl
// accepts exactly the references that are their own canonical form, refuses those CanonicalImage cannot parse,
// and accepts the canonical form the rule suggests.
func TestCanonicalImageMatchesClusterctl(t *testing.T) {
	const sha = "7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa"
	refs := []string{
		"capkit/memcloud:dev", "docker.io/capkit/memcloud:dev", "ghcr.io/capkit/memcloud:v0.1.0", "nginx", "nginx:1.27",
		"docker.io/nginx", "docker.io/library/nginx", "index.docker.io/capkit/memcloud", "index.docker.io/nginx",
		"localhost/memcloud", "localhost", "localhost:5000/memcloud:dev", "registry:5000/memcloud", "127.0.0.1/a/b/c:v1",
		"[::1]:5000/memcloud", "[::1]/memcloud", "Registry/memcloud", "REGISTRY.example.io/memcloud:v1", "example.com",
		"registry.k8s.io/pause:3.10@sha256:" + sha, "busybox@sha256:" + sha, "ghcr.io/x@sha512:" + sha + sha,
		"ghcr.io/x@sha384:" + sha + sha[:32], "my_reg.io/x", "a.b/c__d/e-f--g.h:T_1.x-y", "a.b/c___d", "a.b/c..d",
		"", "capkit/MemCloud:dev", "ghcr.io/capkit/MemCloud", "ghcr.io/capkit/memcloud:", "ghcr.io/capkit/memcloud:-dev",
		"ghcr.io/capkit/memcloud:" + strings.Repeat("a", 128), "ghcr.io/capkit/memcloud:" + strings.Repeat("a", 129),
		"ghcr.io/capkit//memcloud", "ghcr.io/capkit/memcloud_", "ghcr.io/capkit/memcloud:dev ", " ghcr.io/x",
		"ghcr.io/" + strings.Repeat("a", 255), "ghcr.io/" + strings.Repeat("a", 256), strings.Repeat("a", 256),
		"ghcr.io/capkit/memcloud@sha256:" + strings.ToUpper(sha), "ghcr.io/capkit/memcloud@sha256:" + sha[:32],
		"ghcr.io/capkit/memcloud@md5:" + sha, "ghcr.io/x@sha256:" + sha + "@sha256:" + sha, sha, "${MEMCLOUD_IMAGE}",
		"-registry.io/memcloud", "registry-.io/memcloud", "registry.io:port/memcloud", "Capkit/memcloud:dev",
		"capkit/memcloud:DEV", "ghcr.io/capkit/memcloud:dev@sha256:" + sha, "http://ghcr.io/x", "ghcr.io/x/",
	}
	for _, ref := range refs {
		t.Run(ref, func(t *testing.T) {
			canonical, err := capkitclusterctl.CanonicalImage(ref)
			_, clusterctlErr := container.ImageFromString(ref)
			accepted := err == nil && canonical == ref
			assert.Equal(t, accepted, clusterctlErr == nil, "CanonicalImage(%q) = %q, %v; clusterctl: %v", ref, canonical, err, clusterctlErr)
			if err == nil && canonical != ref {
				_, err := container.ImageFromString(canonical)
				assert.NoError(t, err, "clusterctl accepts the suggested %q", canonical)
			}
		})
	}
}
