package clusterctl_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

// imageCases are image references with what clusterctl init (github.com/distribution/reference's ParseNamed, as
// sigs.k8s.io/cluster-api/util/container.ImageFromString calls it) makes of them: the canonical form (clusterctl
// accepts the reference when it is its own canonical form), or "" when clusterctl cannot parse it at all.
// test/clusterctl runs the same references through clusterctl's parser.
var imageCases = []struct {
	ref, canonical string
}{
	{"capkit/memcloud:dev", "docker.io/capkit/memcloud:dev"},
	{"docker.io/capkit/memcloud:dev", "docker.io/capkit/memcloud:dev"},
	{"ghcr.io/capkit/memcloud:v0.1.0", "ghcr.io/capkit/memcloud:v0.1.0"},
	{"nginx", "docker.io/library/nginx"},
	{"nginx:1.27", "docker.io/library/nginx:1.27"},
	{"docker.io/nginx", "docker.io/library/nginx"},
	{"docker.io/library/nginx", "docker.io/library/nginx"},
	{"index.docker.io/capkit/memcloud", "docker.io/capkit/memcloud"},
	{"localhost/memcloud", "localhost/memcloud"},
	{"localhost:5000/memcloud:dev", "localhost:5000/memcloud:dev"},
	{"registry:5000/memcloud", "registry:5000/memcloud"},
	{"127.0.0.1/a/b/c:v1", "127.0.0.1/a/b/c:v1"},
	{"[::1]:5000/memcloud", "[::1]:5000/memcloud"},
	{"Registry/memcloud", "Registry/memcloud"},
	{"REGISTRY.example.io/memcloud:v1", "REGISTRY.example.io/memcloud:v1"},
	{"registry.k8s.io/pause:3.10@sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa", "registry.k8s.io/pause:3.10@sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa"},
	{"busybox@sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa", "docker.io/library/busybox@sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa"},
	{"my_reg.io/x", "my_reg.io/x"}, // no registry, but a path the parser takes whole
	{"a.b/c__d/e-f--g.h:T_1.x-y", "a.b/c__d/e-f--g.h:T_1.x-y"},
	// No reference.
	{"", ""},
	{"capkit/MemCloud:dev", ""},
	{"ghcr.io/capkit/MemCloud", ""},
	{"ghcr.io/capkit/memcloud:", ""},
	{"ghcr.io/capkit/memcloud:-dev", ""},
	{"ghcr.io/capkit/memcloud:" + strings.Repeat("a", 129), ""},
	{"ghcr.io/capkit//memcloud", ""},
	{"ghcr.io/capkit/memcloud_", ""},
	{"ghcr.io/capkit/memcloud:dev ", ""},
	{"ghcr.io/" + strings.Repeat("a", 256), ""},
	{"ghcr.io/" + strings.Repeat("a", 255), "ghcr.io/" + strings.Repeat("a", 255)},
	{"ghcr.io/capkit/memcloud@sha256:7CC4B5AEFD1D0CADF8D97D4350462BA51C694EBCA145B08D7D41B41ACC8DB5AA", ""},
	{"ghcr.io/capkit/memcloud@sha256:7cc4b5aefd1d0cad", ""},
	{"ghcr.io/capkit/memcloud@md5:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa", ""},
	{"7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa", ""},
	{"${MEMCLOUD_IMAGE}", ""},
	{"-registry.io/memcloud", ""},
}

func TestCanonicalImage(t *testing.T) {
	for _, tt := range imageCases {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := clusterctl.CanonicalImage(tt.ref)
			if tt.canonical == "" {
				require.ErrorIs(t, err, clusterctl.ErrImageReference)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.canonical, got)
		})
	}
}

func TestCheckComponentsImageMessages(t *testing.T) {
	text := componentsHead + `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: more, namespace: capm-system, labels: {cluster.x-k8s.io/provider: infrastructure-mem}}
spec:
  template:
    spec:
      initContainers: [{name: init, image: busybox}]
      containers: [{name: a, image: "${A_IMAGE:=capm/agent:dev}"}, {name: b, image: "ghcr.io/capm/Agent:v1"}, {name: c, image: "$${A}"}]
`
	findings, err := clusterctl.CheckFiles(yamlFile(t, "infrastructure-components.yaml", text))
	require.NoError(t, err)
	var lines []string
	for _, f := range findings {
		lines = append(lines, f.String())
	}
	assert.Equal(t, []string{
		`infrastructure-components.yaml:20: error: Deployment/more: components.image: spec.template.spec.containers[0].image: image "${A_IMAGE:=capm/agent:dev}" is "capm/agent:dev" with clusterctl's default variables, which is not canonical: clusterctl init refuses it ("repository name must be canonical"); write "docker.io/capm/agent:dev"`,
		`infrastructure-components.yaml:20: error: Deployment/more: components.image: spec.template.spec.containers[1].image: image "ghcr.io/capm/Agent:v1" is no image reference clusterctl init can parse: invalid image reference: repository name "capm/Agent" must be lowercase`,
		`infrastructure-components.yaml:20: error: Deployment/more: components.image: spec.template.spec.containers[2].image: image "$${A}" is "${A}" with clusterctl's default variables, which is no image reference clusterctl init can parse: invalid image reference: repository name "library/${A}" must be lowercase`,
		`infrastructure-components.yaml:20: error: Deployment/more: components.image: spec.template.spec.initContainers[0].image: image "busybox" is not canonical: clusterctl init refuses it ("repository name must be canonical"); write "docker.io/library/busybox"`,
	}, lines)
}
