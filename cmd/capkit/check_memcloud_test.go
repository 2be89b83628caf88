package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/release/clusterctl"
)

// memcloudConfig is memcloud's config folder: release series 0.2 (contract v1beta2, serving v1beta1 too), with
// the files of the older release v0.1.0 (contract v1beta1) in releases/v0.1.0.
const memcloudConfig = "../../examples/memcloud/config"

// TestCheckMemcloudReleases runs capkit check on memcloud's current release folder, which holds the old release
// below it, and on the old release alone: no violations, and the RBAC and webhook files listed as not checked (exit
// code 3).
func TestCheckMemcloudReleases(t *testing.T) {
	tests := []struct {
		dir        string
		notChecked []string
	}{
		{dir: memcloudConfig, notChecked: []string{"rbac/role.yaml", "releases/v0.1.0/rbac/role.yaml", "webhook/manifests.yaml"}},
		{dir: filepath.Join(memcloudConfig, "releases", "v0.1.0"), notChecked: []string{"rbac/role.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			code, stdout, stderr := check(tt.dir)
			assert.Equal(t, 0, code, stdout+stderr)
			assert.Contains(t, stderr, ", 0 violations, ", stdout)
			var lines []string
			for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
				file, _, _ := strings.Cut(l, ": ")
				rel, err := filepath.Rel(tt.dir, file)
				require.NoError(t, err)
				lines = append(lines, filepath.ToSlash(rel))
			}
			assert.Equal(t, tt.notChecked, lines, "only files that are no release files are not checked")
		})
	}
}

// TestMemcloudOldReleaseDeclaresV1Beta1 checks that the CRDs of memcloud v0.1.0 serve API version v1beta1 only and
// declare contract v1beta1, as its metadata.yaml says, while the current ones declare v1beta2 and serve v1beta1 too.
func TestMemcloudOldReleaseDeclaresV1Beta1(t *testing.T) {
	tests := []struct {
		dir string
		// contract is what MemCluster, MemMachine and MemMachineTemplate declare, with the API version that
		// implements it, and served the API versions they serve.
		contract   contract.Version
		apiVersion string
		served     []string
	}{
		{dir: filepath.Join(memcloudConfig, "releases", "v0.1.0"), contract: contract.V1Beta1, apiVersion: "v1beta1", served: []string{"v1beta1"}},
		{dir: memcloudConfig, contract: contract.V1Beta2, apiVersion: "v1beta2", served: []string{"v1beta1", "v1beta2"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			for _, plural := range []string{"memclusters", "memmachines", "memmachinetemplates"} {
				f, err := clusterctl.ReadYAMLFile(filepath.Join(tt.dir, "crd", "bases", "infrastructure.memcloud.capkit.io_"+plural+".yaml"))
				require.NoError(t, err)
				require.Len(t, f.Documents, 1)
				crd := &apiextensionsv1.CustomResourceDefinition{}
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(f.Documents[0].Object.Object, crd))
				v, apiVersion, err := contract.VersionOf(crd)
				require.NoError(t, err, plural)
				assert.Equal(t, tt.contract, v, plural)
				assert.Equal(t, tt.apiVersion, apiVersion, plural)
				var served []string
				for _, version := range crd.Spec.Versions {
					if version.Served {
						served = append(served, version.Name)
					}
				}
				assert.Equal(t, tt.served, served, plural)
			}
		})
	}
}
