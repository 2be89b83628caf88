// Package hack_test checks the hack/ scripts that fill capkit's build cache. The scripts run against a stub `go`
// command, so the tests take seconds and build nothing real.
package hack_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubGo is a `go` command that "builds" a small executable after a pause (so that two runs overlap) and
// records each build in $STUB_LOG (go install names it as the real one does); every other go command succeeds and
// does nothing.
const stubGo = `#!/usr/bin/env bash
set -euo pipefail
if [[ "${1:-}" == "env" ]]; then echo "$STUB_MODCACHE"; exit 0; fi
if [[ "${1:-} ${2:-} ${3:-}" == "mod download -json" ]]; then printf '{\n\t"Path": "%s",\n\t"Dir": "%s"\n}\n' "${4%@*}" "$STUB_MODCACHE/$4"; exit 0; fi
if [[ "${1:-}" == "build" || "${1:-}" == "install" ]]; then
  out="" pkg=""
  while [[ $# -gt 0 ]]; do
    if [[ "$1" == "-o" ]]; then out="$2"; shift; elif [[ "$1" != -* ]]; then pkg="${1%@*}"; fi
    shift
  done
  # go install names the binary after the package path's last element, or the one before a major version suffix.
  name="${pkg##*/}"
  if [[ "$name" =~ ^v[0-9]+$ ]]; then name="${pkg%/*}"; name="${name##*/}"; fi
  [[ -n "$out" ]] || { mkdir -p "$GOBIN"; out="$GOBIN/$name"; }
  echo "build $out" >>"$STUB_LOG"
  sleep 1
  printf '#!/bin/sh\necho stub\n' >"$out"
  chmod +x "$out"
fi
`

// runConcurrently runs script twice at once with a shared cache and returns each run's stdout.
func runConcurrently(t *testing.T, script string) (outs []string, builds []string) {
	t.Helper()
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "go"), []byte(stubGo), 0o755))
	log := filepath.Join(tmp, "builds.log")
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CAPKIT_CACHE="+filepath.Join(tmp, "cache"),
		"STUB_LOG="+log, "STUB_MODCACHE="+filepath.Join(tmp, "modcache"))

	// KWOK's stage files, as `go mod download sigs.k8s.io/kwok` leaves them in the module cache.
	stages := filepath.Join(tmp, "modcache", "sigs.k8s.io", "kwok@v0.8.0", "kustomize", "stage")
	for _, f := range []string{"node/fast/node-initialize.yaml", "node/heartbeat/node-heartbeat.yaml", "pod/fast/pod-ready.yaml",
		"pod/fast/pod-complete.yaml", "pod/fast/pod-delete.yaml"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(stages, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(stages, f), []byte("kind: Stage\n"), 0o644))
	}

	// CAPV's module, as `go mod download -json` leaves it in the module cache.
	capv := filepath.Join(tmp, "modcache", "sigs.k8s.io", "cluster-api-provider-vsphere@v1.14.0")
	require.NoError(t, os.MkdirAll(capv, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(capv, "go.mod"), []byte("module sigs.k8s.io/cluster-api-provider-vsphere\n"), 0o444))
	require.NoError(t, os.MkdirAll(filepath.Join(capv, "config", "default", "crd", "bases"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(capv, "config", "default", "crd", "bases", "vspheremachines.yaml"), []byte("kind: CustomResourceDefinition\n"), 0o444))

	outs = make([]string, 2)
	errs := make([]error, 2)
	stderrs := make([]bytes.Buffer, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("bash", script)
			cmd.Env = env
			cmd.Stderr = &stderrs[i]
			out, err := cmd.Output()
			outs[i], errs[i] = strings.TrimSpace(string(out)), err
		}()
	}
	wg.Wait()
	for i := range 2 {
		require.NoError(t, errs[i], "run %d: %s", i, stderrs[i].String())
	}
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	return outs, strings.Split(strings.TrimSpace(string(data)), "\n")
}

// Two `make test` at once on one machine: both runs succeed, the second waits for the first and builds nothing,
// and no temporary file is left in the cache.
func TestBuildScriptsShareTheCacheSafely(t *testing.T) {
	tests := []struct {
		script     string
		wantBuilds int
		wantFiles  []string
	}{
		{script: "envtest-binaries.sh", wantBuilds: 2, wantFiles: []string{"etcd", "kube-apiserver"}},
		{script: "kwok-binaries.sh", wantBuilds: 2, wantFiles: []string{"kube-scheduler", "kwok", "stages.yaml"}},
		{script: "capi-managers.sh", wantBuilds: 2, wantFiles: []string{"cluster-api-manager", "kubeadm-bootstrap-manager"}},
		// kubebuilder.sh and capv-manager.sh print the binary's path, not its folder.
		{script: "kubebuilder.sh", wantBuilds: 1, wantFiles: []string{"kubebuilder"}},
		{script: "capv-manager.sh", wantBuilds: 1, wantFiles: []string{"crd", "manager"}},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			outs, builds := runConcurrently(t, tt.script)
			assert.Equal(t, outs[0], outs[1], "both runs print the same cache folder")
			assert.Len(t, builds, tt.wantBuilds, "each binary is built once: %q", builds)
			dir := outs[0]
			if info, err := os.Stat(dir); err == nil && !info.IsDir() {
				dir = filepath.Dir(dir)
			}
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), ".") {
					names = append(names, e.Name())
				}
			}
			assert.Equal(t, tt.wantFiles, names, "only the finished binaries, no temporary files")
		})
	}
}

// disk-space.sh empties Go's build cache only when its file system has less free space than asked, and refuses a
// threshold that is not a whole number of GiB, naming it.
func TestDiskSpace(t *testing.T) {
	for _, tc := range []struct {
		name, min string
		cleaned   bool
		noCache   bool // GOCACHE names a folder that does not exist yet
		wantErr   string
	}{
		{name: "enough room", min: "0"},
		{name: "too little room", min: "9999", cleaned: true},
		{name: "no cache yet (a fresh machine)", min: "0", noCache: true},
		{name: "not a number", min: "12G", wantErr: `MIN_GIB must be a whole number of GiB, got "12G"`},
		{name: "too long", min: "123456", wantErr: `got "123456"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir() // a cache of its own: go clean -cache empties only this one
			entry := filepath.Join(cache, "00", "entry-a")
			require.NoError(t, os.MkdirAll(filepath.Dir(entry), 0o755))
			require.NoError(t, os.WriteFile(entry, []byte("built"), 0o644))
			if tc.noCache {
				cache = filepath.Join(cache, "not", "yet")
			}
			cmd := exec.Command("bash", "disk-space.sh", tc.min)
			cmd.Env = append(os.Environ(), "GOCACHE="+cache)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, stderr.String(), tc.wantErr)
				assert.FileExists(t, entry)
				return
			}
			require.NoError(t, err, stderr.String())
			assert.Contains(t, stdout.String(), "GiB free for Go's build cache ("+cache+")")
			if tc.noCache {
				assert.NoDirExists(t, cache, "nothing made")
				return
			}
			if tc.cleaned {
				assert.NoFileExists(t, entry)
				assert.Contains(t, stdout.String(), "emptying Go's build cache")
			} else {
				assert.FileExists(t, entry)
			}
		})
	}
}
