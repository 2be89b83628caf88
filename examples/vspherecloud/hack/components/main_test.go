package main

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/components"
)

// configDir is vspherecloud's config folder, relative to this package.
const configDir = "../../config"

func TestCommittedComponentsAreFresh(t *testing.T) {
	cfg := config
	cfg.ConfigDir = configDir
	require.NoError(t, components.Verify(cfg))
}

// TestCapkitCheckIsClean runs `capkit check` on vspherecloud's release files, as a provider's CI would.
func TestCapkitCheckIsClean(t *testing.T) {
	out, err := exec.Command("go", "run", "../../../../cmd/capkit", "check", configDir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "0 violations", "%s", out)
}
