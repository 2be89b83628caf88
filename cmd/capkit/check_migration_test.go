package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// migration holds the fixtures of the v1beta1 -> v1beta2 migration mistakes (issue 26).
const migration = "../../contract/lint/testdata/migration"

// TestCheckMigrationMistakes runs capkit check on CRD files and a release folder with one migration mistake each:
// one violation per file, each naming the rule and the fix.
func TestCheckMigrationMistakes(t *testing.T) {
	code, stdout, stderr := check(filepath.Join(migration, "bad"))
	assert.Equal(t, 1, code, stdout+stderr)
	assert.Equal(t, "capkit check: 6 files, 5 violations\n", stderr)
	want := map[string]string{
		"crds/label-without-fields.yaml":        "inframachine.provisioned: status.initialization.provisioned: ",
		"crds/label-only-v1beta1-status.yaml":   "crd.contract-shape: ",
		"crds/storage-drops-fields.yaml":        `crd.storage-version-fields: spec.versions[v1beta1].schema: storage version "v1beta1" has no status.initialization.provisioned`,
		"crds/label-names-missing-version.yaml": "crd.contract-label-version: ",
		"release/crds.yaml":                     "metadata.crd-contract: metadata.labels: ",
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, len(want), stdout)
	for file, rule := range want {
		var found []string
		for _, l := range lines {
			if strings.HasPrefix(l, filepath.Join(migration, "bad", file)+":") {
				found = append(found, l)
			}
		}
		require.Len(t, found, 1, "%s: one violation in\n%s", file, stdout)
		assert.Contains(t, found[0], rule)
	}
}

func TestCheckMigrationGood(t *testing.T) {
	code, stdout, stderr := check(filepath.Join(migration, "good"))
	assert.Equal(t, 0, code, stdout+stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, "capkit check: 1 file, 0 violations\n", stderr)
}
