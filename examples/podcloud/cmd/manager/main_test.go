package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The standard flags are tested in capkit's reconcile/manager; these are podcloud's own.
func parseFlags(args []string) (flags, error) {
	var f flags
	p := f.provider()
	return f, f.Parse(args, p.Defaults, p.Flags)
}

func TestParseFlags(t *testing.T) {
	f, err := parseFlags(nil)
	require.NoError(t, err)
	assert.Empty(t, f.targetKubeconfig, "the management cluster is the target")
	assert.Equal(t, 30*time.Second, f.ResyncPeriod, "a provisioned machine looks at its Pod every 30s")

	f, err = parseFlags([]string{"--target-kubeconfig", "/k/config", "--resync-period", "2s"})
	require.NoError(t, err)
	assert.Equal(t, "/k/config", f.targetKubeconfig)
	assert.Equal(t, 2*time.Second, f.ResyncPeriod)

	_, err = parseFlags([]string{"x"})
	assert.ErrorContains(t, err, `unexpected arguments ["x"]`)
}

func TestTargetClientNamesTheFile(t *testing.T) {
	f := flags{targetKubeconfig: "/does/not/exist"}
	_, err := f.targetClient(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--target-kubeconfig "/does/not/exist"`)
}
