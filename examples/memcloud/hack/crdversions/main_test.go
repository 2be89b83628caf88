package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// oldCRDs is the folder of the CRDs of memcloud v0.1.0, relative to this package.
const oldCRDs = "../../config/releases/v0.1.0/crd/bases"

// twoVersions is a CRD as controller-gen writes it when package v1beta1 pulls in package v1beta2.
const twoVersions = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  labels:
    cluster.x-k8s.io/v1beta1: v1beta1
    cluster.x-k8s.io/v1beta2: v1beta2
    example.io/other: v1beta2
  name: memmachines.infrastructure.memcloud.capkit.io
spec:
  group: infrastructure.memcloud.capkit.io
  names:
    kind: MemMachine
    plural: memmachines
  scope: Namespaced
  versions:
  - name: v1beta1
    served: true
    storage: false
  - name: v1beta2
    served: true
    storage: true
`

func TestKeepVersion(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		keep    string
		labels  map[string]string
		wantErr string
	}{
		{name: "keeps v1beta1 as the storage version", data: twoVersions, keep: "v1beta1",
			labels: map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "example.io/other": "v1beta2"}},
		{name: "keeps v1beta2", data: twoVersions, keep: "v1beta2",
			labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2", "example.io/other": "v1beta2"}},
		{name: "a label naming several versions", data: strings.Replace(twoVersions, "cluster.x-k8s.io/v1beta1: v1beta1", "cluster.x-k8s.io/v1beta1: v1beta1_v1beta2", 1),
			keep: "v1beta1", labels: map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "example.io/other": "v1beta2"}},
		{name: "version missing", data: twoVersions, keep: "v1alpha1", wantErr: `the CRD's versions are ["v1beta1" "v1beta2"]`},
		{name: "two documents", data: twoVersions + twoVersions, keep: "v1beta1", wantErr: "want one CRD per file"},
		{name: "not a CRD", data: "apiVersion: v1\nkind: ConfigMap\n", keep: "v1beta1", wantErr: `kind is "ConfigMap", want CustomResourceDefinition`},
		{name: "not YAML", data: "kind: [\n", keep: "v1beta1", wantErr: "cannot decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := keepVersion([]byte(tt.data), tt.keep)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			var crd apiextensionsv1.CustomResourceDefinition
			require.NoError(t, yaml.UnmarshalStrict(out, &crd))
			require.Len(t, crd.Spec.Versions, 1)
			assert.Equal(t, tt.keep, crd.Spec.Versions[0].Name)
			assert.True(t, crd.Spec.Versions[0].Storage)
			assert.True(t, crd.Spec.Versions[0].Served)
			assert.Equal(t, tt.labels, crd.Labels)
			again, err := keepVersion(out, tt.keep)
			require.NoError(t, err)
			assert.Equal(t, string(out), string(again), "a second run changes nothing")
		})
	}
}

func TestCommittedOldCRDsAreSingleVersion(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(oldCRDs, "*.yaml"))
	require.NoError(t, err)
	require.Len(t, names, 3, "MemCluster, MemMachine and MemMachineTemplate")
	for _, name := range names {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		out, err := keepVersion(data, "v1beta1")
		require.NoError(t, err)
		assert.Equal(t, string(data), string(out), "%s: run make generate", name)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "crd.yaml")
	require.NoError(t, os.WriteFile(file, []byte(twoVersions), 0o644))
	var stderr bytes.Buffer
	require.NoError(t, run([]string{"-keep", "v1beta1", dir}, &stderr))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "name: v1beta2")

	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "no version", args: []string{dir}, wantErr: errUsage.Error()},
		{name: "no folder", args: []string{"-keep", "v1beta1"}, wantErr: errUsage.Error()},
		{name: "unknown flag", args: []string{"-x"}, wantErr: errUsage.Error()},
		{name: "empty folder", args: []string{"-keep", "v1beta1", t.TempDir()}, wantErr: "run controller-gen crd first"},
		{name: "missing version", args: []string{"-keep", "v1alpha1", dir}, wantErr: `cannot keep version "v1alpha1" in "` + file + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(tt.args, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}
