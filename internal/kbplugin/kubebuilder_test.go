package kbplugin_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/kbplugin"
	"github.com/capkit/capkit/internal/scaffold"
	"github.com/capkit/capkit/internal/scaffold/scaffoldtest"
)

// kubebuilderBinary returns the real kubebuilder CLI that make test builds with hack/kubebuilder.sh. A missing one
// fails the test: a skipped test would hide that the plugin was never run by Kubebuilder.
func kubebuilderBinary(t *testing.T) string {
	t.Helper()
	kb := os.Getenv("CAPKIT_KUBEBUILDER")
	if kb == "" {
		t.Fatal("CAPKIT_KUBEBUILDER is not set: run `make test`, which builds kubebuilder with hack/kubebuilder.sh " +
			"(or CAPKIT_KUBEBUILDER=$(hack/kubebuilder.sh) go test ./internal/kbplugin/)")
	}
	_, err := os.Stat(kb)
	require.NoError(t, err, "CAPKIT_KUBEBUILDER=%q: run `make test`, which builds kubebuilder with hack/kubebuilder.sh", kb)
	return kb
}

// run runs a command in dir and returns its combined output.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s (%s)", filepath.Base(name), strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out.String(), err
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := run(t, dir, env, name, args...)
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return out
}

// assertFilesOnDisk checks that every file is under dir with its content.
func assertFilesOnDisk(t *testing.T, dir string, files scaffold.Files) {
	t.Helper()
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if assert.NoError(t, err, "file %q", name) {
			assert.Equal(t, string(want), string(got), "file %q", name)
		}
	}
}

// The real kubebuilder runs the plugin: init writes the files of scaffold.Init, create api adds AcmeMachinePool to
// that project, the PROJECT file records the plugin, and the provider passes its tests against this checkout.
func TestKubebuilderPluginScaffoldsAProvider(t *testing.T) {
	kb := kubebuilderBinary(t)
	scaffoldtest.RequireTools(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)

	// The layout Kubebuilder looks plugins up in: $EXTERNAL_PLUGINS_PATH/<name>/<version>/<name>.
	plugins := t.TempDir()
	bin := filepath.Join(plugins, kbplugin.Name, kbplugin.Version, kbplugin.Name)
	mustRun(t, root, nil, "go", "build", "-o", bin, "./cmd/kubebuilder-capkit")
	env := []string{"EXTERNAL_PLUGINS_PATH=" + plugins}

	dir := filepath.Join(t.TempDir(), "cluster-api-provider-acme")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	o := scaffold.Options{Module: "github.com/acme/cluster-api-provider-acme", Provider: "acme", Domain: "acme.io", CapkitReplace: root}

	mustRun(t, dir, env, kb, "init", "--plugins", kbplugin.Key, "--domain", o.Domain, "--repo", o.Module,
		"--provider", o.Provider, "--capkit-replace", o.CapkitReplace)
	initFiles, err := scaffold.Init(o)
	require.NoError(t, err)
	delete(initFiles, "PROJECT")
	assertFilesOnDisk(t, dir, initFiles)

	// What create api must add, computed from the project on disk before it runs.
	apiFiles, err := scaffold.CreateMachinePool(o, func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return b, err
	})
	require.NoError(t, err)
	delete(apiFiles, "PROJECT")
	mustRun(t, dir, env, kb, "create", "api", "--plugins", kbplugin.Key, "--group", "infrastructure", "--version", "v1beta2",
		"--kind", "AcmeMachinePool", "--capkit-replace", o.CapkitReplace)
	assertFilesOnDisk(t, dir, apiFiles)
	var kindDeclared bool
	for _, content := range apiFiles {
		kindDeclared = kindDeclared || bytes.Contains(content, []byte("type AcmeMachinePool struct"))
	}
	assert.True(t, kindDeclared, "create api declares the AcmeMachinePool type")

	// Kubebuilder writes PROJECT itself and records the plugin; an external plugin cannot add resources to it.
	project, err := os.ReadFile(filepath.Join(dir, "PROJECT"))
	require.NoError(t, err)
	assert.Contains(t, string(project), "layout:\n- "+kbplugin.Key+"\n")
	assert.Contains(t, string(project), "version: \"3\"")

	// Anything else gets the plugin's own error through kubebuilder.
	out, err := run(t, dir, env, kb, "create", "api", "--plugins", kbplugin.Key, "--group", "infrastructure", "--version", "v1beta2",
		"--kind", "AcmeWidget")
	require.Error(t, err)
	assert.Contains(t, out, `cannot create kind "AcmeWidget": kubebuilder-capkit/v1-alpha supports --kind <Provider>MachinePool only`)
	out, err = run(t, dir, env, kb, "edit", "--plugins", kbplugin.Key)
	require.Error(t, err)
	assert.Contains(t, out, `cannot run command "edit": kubebuilder-capkit/v1-alpha supports "init" and "create api"`)

	// The provider passes its own CI against this checkout (go.mod replaces capkit with it), though Kubebuilder
	// writes every file without its executable bit.
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	require.Contains(t, string(gomod), root, "go.mod replaces capkit with the checkout")
	scaffoldtest.CheckProject(t, dir)
}
