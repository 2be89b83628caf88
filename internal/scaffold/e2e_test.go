package scaffold_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/internal/scaffold"
	"github.com/capkit/capkit/internal/scaffold/scaffoldtest"
	"github.com/capkit/capkit/providertest/testenv"
)

// TestGeneratedProjectPassesItsTests writes a provider with Init (and one with Init and CreateMachinePool) into
// a temporary folder, with a replace of capkit by this checkout, and runs what its CI runs (scaffoldtest.CheckProject:
// go mod tidy, go build, go vet, make test, make check with 0 violations, and make generate leaving every file as
// Init wrote it). A change of capkit that breaks a generated provider fails here.
func TestGeneratedProjectPassesItsTests(t *testing.T) {
	scaffoldtest.RequireTools(t)
	root, err := testenv.SourceDir("../..")
	require.NoError(t, err)
	for _, tt := range []struct {
		name        string
		machinePool bool
	}{
		{name: "init"},
		{name: "init and machine pool", machinePool: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := scaffold.Options{Module: "example.com/acme/cluster-api-provider-acme", Provider: "acmecloud", Domain: "acme.example.com", CapkitReplace: root}
			files, err := scaffold.Init(o)
			require.NoError(t, err)
			dir := t.TempDir()
			require.NoError(t, scaffold.Write(dir, files, false))
			if tt.machinePool {
				mp, err := scaffold.CreateMachinePool(o, func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))) })
				require.NoError(t, err)
				require.NoError(t, scaffold.Write(dir, mp, true))
			}
			scaffoldtest.CheckProject(t, dir)
		})
	}
}
