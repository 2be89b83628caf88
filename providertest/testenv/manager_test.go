package testenv_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/providertest/testenv"
)

func TestStartManager(t *testing.T) {
	ctx := context.Background()
	called := false
	m, err := env.StartManager(ctx, logr.Discard(), func(ctrl.Manager) error { called = true; return nil })
	require.NoError(t, err)
	assert.True(t, called, "setup registers the provider's controllers before the start")
	assert.True(t, m.GetCache().WaitForCacheSync(ctx), "started and synced")
	require.NoError(t, m.Stop())
	require.NoError(t, m.Stop(), "a second Stop is harmless")

	boom := errors.New("boom")
	_, err = env.StartManager(ctx, logr.Logger{}, func(ctrl.Manager) error { return boom })
	require.ErrorIs(t, err, boom, "a setup error is returned and nothing is started")
}

func TestProviderOptionsNamesMissingCRDs(t *testing.T) {
	_, err := testenv.ProviderOptions(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot find the provider's CRDs")

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "crd", "bases"), 0o755))
	crds, err := os.ReadFile("../testdata/crds/memcrds.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crd", "bases", "crds.yaml"), crds, 0o644))
	opts, err := testenv.ProviderOptions(dir)
	require.NoError(t, err)
	assert.Len(t, opts, 4, "scheme, the provider's CRDs, no CAPI module CRDs, the minimal Cluster and Machine CRDs; no webhooks")
}

func TestProviderOptionsAndErrors(t *testing.T) {
	_, err := testenv.Provider{ConfigDir: t.TempDir()}.Options()
	require.Error(t, err, "no CRDs")
	_, err = testenv.Provider{ConfigDir: t.TempDir()}.NewEnvironment()
	require.Error(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "crd", "bases"), 0o755))
	crds, err := os.ReadFile("../testdata/crds/memcrds.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crd", "bases", "crds.yaml"), crds, 0o644))
	opts, err := testenv.Provider{ConfigDir: dir}.Options(testenv.WithoutCAPICRDs())
	require.NoError(t, err)
	assert.Len(t, opts, 5, "the provider's options, then the caller's")
}
