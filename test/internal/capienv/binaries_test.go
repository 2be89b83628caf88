package capienv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/test/internal/capienv"
)

func TestBinDir(t *testing.T) {
	full := t.TempDir()
	for _, c := range []capienv.Component{capienv.Core, capienv.KubeadmBootstrap} {
		require.NoError(t, os.WriteFile(filepath.Join(full, c.Binary), []byte("#!/bin/sh\n"), 0o755))
	}
	coreOnly := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(coreOnly, capienv.Core.Binary), []byte("#!/bin/sh\n"), 0o755))
	notExecutable := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notExecutable, capienv.Core.Binary), []byte("x"), 0o644))

	tests := []struct {
		name    string
		env     string
		wantErr string
	}{
		{name: "both binaries", env: full},
		{name: "unset", env: "", wantErr: "CAPKIT_CAPI_BIN is not set"},
		{name: "missing binary", env: coreOnly, wantErr: `"kubeadm-bootstrap-manager"`},
		{name: "not executable", env: notExecutable, wantErr: `"cluster-api-manager"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(capienv.BinDirEnv, tt.env)
			dir, err := capienv.BinDir(capienv.Core, capienv.KubeadmBootstrap)
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.env, dir)
				return
			}
			require.ErrorIs(t, err, capienv.ErrNoBinaries)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "hack/capi-managers.sh", "the error must say how to build the binaries")
		})
	}
}
