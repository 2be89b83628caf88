package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goodCRD is a CRD of no contract role with no violations.
const goodCRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: things.x.io}\n" +
	"spec: {group: x.io, names: {kind: Thing, plural: things, listKind: ThingList, singular: thing}, scope: Namespaced, versions: " +
	"[{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]}\n"

// TestCheckListsWhatItCannotRead: a Helm values file, a clusterctl configuration file, a kustomization and malformed
// YAML are each listed as "FILE: not checked: REASON" naming what they are, and the other files are still checked.
func TestCheckListsWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	values := writeFile(t, dir, "cilium/values.yaml", "hubble:\n  enabled: false\n")
	config := writeFile(t, dir, "testdata/init.yaml", "CLUSTERCTL_LOG_LEVEL: 10\nproviders:\n- name: x\n  url: file://${HOME}/x.yaml\n")
	kustomization := writeFile(t, dir, "overlay/kustomization.yaml", "resources: [../cilium]\n")
	broken := writeFile(t, dir, "cluster-template-broken.yaml", "apiVersion: v1\nkind: A\nx: [${A}\ny: 1\n")
	writeFile(t, dir, "crd.yaml", badCRD)
	code, stdout, stderr := check(dir)
	assert.Equal(t, 1, code, "a violation was found: 1 wins over files not checked")
	assert.Equal(t, []string{
		dir + "/crd.yaml:1: CustomResourceDefinition/xclusters.infrastructure.x.io: crd.invalid: spec.versions: the CRD has no versions",
		values + ": not checked: a Helm values file, not Kubernetes objects (malformed YAML at line 1: document has no apiVersion)",
		broken + ": not checked: malformed YAML at line 3: did not find expected ',' or ']'",
		kustomization + ": not checked: a kustomization, which capkit does not build: check what it builds (kubectl kustomize " + dir + "/overlay > built.yaml; capkit check built.yaml)",
		config + ": not checked: a clusterctl configuration file, not Kubernetes objects (malformed YAML at line 1: document has no apiVersion)",
	}, strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"))
	assert.Equal(t, "capkit check: 5 files, 1 violation, 4 not checked (listed above)\n", stderr)
}

// TestCheckExitCodes: 0 clean, 1 violations (whatever else), 3 no violations but files not checked (1 with --strict),
// 2 usage errors and arguments that cannot be read.
func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	clean := writeFile(t, dir, "crd.yaml", goodCRD)
	bad := writeFile(t, dir, "bad.yaml", badCRD)
	malformed := writeFile(t, dir, "malformed.yaml", "a: [\n")
	unreadable := writeFile(t, dir, "secret/unreadable.yaml", goodCRD)
	require.NoError(t, os.Chmod(unreadable, 0))
	if f, err := os.Open(unreadable); err == nil {
		_ = f.Close()
		t.Log("running with permission to read anything: the unreadable cases are left out")
		unreadable = ""
	}
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"clean", []string{clean}, 0},
		{"violations", []string{bad}, 1},
		{"not checked", []string{clean, malformed}, 3},
		{"violations and not checked", []string{bad, malformed}, 1},
		{"strict", []string{"--strict", clean, malformed}, 1},
		{"missing argument", []string{filepath.Join(dir, "nope.yaml")}, 2},
		{"no arguments", nil, 2},
	}
	if unreadable != "" {
		tests = append(tests,
			struct {
				name string
				args []string
				want int
			}{"unreadable argument", []string{clean, unreadable}, 2},
			struct {
				name string
				args []string
				want int
			}{"unreadable file in a folder", []string{filepath.Dir(unreadable)}, 3})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := check(tt.args...)
			assert.Equal(t, tt.want, code, stdout+stderr)
		})
	}
}

// TestCheckNamesTheKustomization: config/crd/bases, whose CRDs get their contract labels from config/crd's
// kustomization, is checked, and the summary names the folder whose output to check.
func TestCheckNamesTheKustomization(t *testing.T) {
	repo := t.TempDir()
	writeFile(t, repo, "go.mod", "module x\n")
	writeFile(t, repo, "config/crd/kustomization.yaml", "labels:\n- pairs: {cluster.x-k8s.io/v1beta2: v1}\nresources: [bases/x.io_things.yaml]\n")
	writeFile(t, repo, "config/crd/bases/x.io_things.yaml", goodCRD)
	bases := filepath.Join(repo, "config", "crd", "bases")
	code, stdout, stderr := check(bases)
	assert.Equal(t, 0, code, stdout)
	assert.Equal(t, "capkit check: 1 file, 0 violations; "+bases+" has no kustomization but "+filepath.Join(repo, "config", "crd")+
		" has one, which may add labels (such as the contract labels of CRDs) and patches: to check what a release ships, check what it builds (kubectl kustomize "+
		filepath.Join(repo, "config", "crd")+")\n", stderr)

	code, _, stderr = check(filepath.Join(repo, "config"))
	assert.Equal(t, 3, code, "the kustomization is listed as not checked")
	assert.NotContains(t, stderr, "has no kustomization", "nothing above config but the repository root")
}
