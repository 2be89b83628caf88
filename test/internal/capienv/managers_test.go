package capienv_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/test/internal/capienv"
)

func TestStartFailsFastWhenAManagerExits(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"flags: $*\"\necho 'unable to start manager' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, capienv.Core.Binary), []byte(script), 0o755))
	t.Setenv(capienv.BinDirEnv, bin)
	dir := t.TempDir()

	start := time.Now()
	_, err := capienv.Start(context.Background(), envtestLikeConfig(), nil, []capienv.Component{capienv.Core},
		capienv.WithDir(dir), capienv.WithoutWebhooks(), capienv.WithArgs(capienv.Core, "--extra"))
	require.ErrorIs(t, err, capienv.ErrExited)
	assert.Less(t, time.Since(start), 30*time.Second, "no waiting for the ready timeout")
	assert.Contains(t, err.Error(), filepath.Join(dir, "core.log"), "the error names the log")

	log, err := os.ReadFile(filepath.Join(dir, "core.log"))
	require.NoError(t, err)
	for _, flag := range []string{"--kubeconfig=" + filepath.Join(dir, "kubeconfig"), "--leader-elect=false", "--insecure-diagnostics",
		"--webhook-cert-dir=" + filepath.Join(dir, "certs"), "--extra"} {
		assert.Contains(t, string(log), flag)
	}
	assert.FileExists(t, filepath.Join(dir, "certs", capienv.CertFile))
}

func TestStartNeedsComponentsAndBinaries(t *testing.T) {
	_, err := capienv.Start(context.Background(), envtestLikeConfig(), nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no component")

	t.Setenv(capienv.BinDirEnv, "")
	_, err = capienv.Start(context.Background(), envtestLikeConfig(), nil, []capienv.Component{capienv.Core})
	require.ErrorIs(t, err, capienv.ErrNoBinaries)
}
