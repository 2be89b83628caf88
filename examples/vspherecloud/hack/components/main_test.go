package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/components"
)

// configDir is vspherecloud's config folder, relative to this package.
const configDir = "../../config"

func TestCommittedComponentsAreFresh(t *testing.T) {
	out := filepath.Join(t.TempDir(), "components.yaml")
	require.NoError(t, components.Run(config, []string{"-config", configDir, "-o", out}, os.Stderr))
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(configDir, "infrastructure-components.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "run make generate")
}

// TestCapkitCheckIsClean runs `capkit check` on vspherecloud's release files, as a provider's CI would.
func TestCapkitCheckIsClean(t *testing.T) {
	out, err := exec.Command("go", "run", "../../../../cmd/capkit", "check", configDir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "0 violations", "%s", out)
}
