package components_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/components"
)

func TestVerify(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(t *testing.T, cfg components.Config)
		wantErr string
	}{
		{name: "the file Build makes", edit: func(*testing.T, components.Config) {}},
		{name: "a file edited by hand", wantErr: "is stale: write it again with go run ./hack/components (make generate)",
			edit: func(t *testing.T, cfg components.Config) {
				path := filepath.Join(cfg.ConfigDir, "infrastructure-components.yaml")
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path, append(data, "# edited\n"...), 0o644))
			}},
		{name: "no file", wantErr: "cannot verify the components",
			edit: func(t *testing.T, cfg components.Config) {
				require.NoError(t, os.Remove(filepath.Join(cfg.ConfigDir, "infrastructure-components.yaml")))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := validConfig(configDir(t, map[string]string{}))
			require.NoError(t, components.Run(cfg, nil, os.Stderr))
			tt.edit(t, cfg)
			err := components.Verify(cfg)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
			if tt.name == "a file edited by hand" {
				assert.ErrorIs(t, err, components.ErrStale)
			}
		})
	}
}
