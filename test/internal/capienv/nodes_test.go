package capienv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/test/internal/capienv"
)

func TestTailFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	require.NoError(t, os.WriteFile(path, []byte("a\nb\nc\n"), 0o600))
	assert.Equal(t, "b\nc", capienv.TailFile(path, 2))
	assert.Equal(t, "a\nb\nc", capienv.TailFile(path, 10))
	assert.Contains(t, capienv.TailFile(filepath.Join(t.TempDir(), "missing"), 2), "cannot read")
}
