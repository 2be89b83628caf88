package scopetest_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

func TestTrackerModelsCrashAndMove(t *testing.T) {
	ctx := t.Context()
	tr := scopetest.NewTracker("owner-1")
	key, err := tr.OwnershipKey()
	require.NoError(t, err)
	assert.Equal(t, "owner-1", key)

	require.NoError(t, tr.SetResourceID("network", "net-1"))
	require.NoError(t, tr.PatchNow(ctx))
	require.NoError(t, tr.PatchNow(ctx), "nothing changed: no write")
	assert.Equal(t, 1, tr.Writes())

	require.NoError(t, tr.SetResourceID("subnet", "subnet-1"))
	crash := errors.New("killed")
	tr.FailNextPatch(crash)
	require.ErrorIs(t, tr.PatchNow(ctx), crash)
	assert.Equal(t, map[string]string{"network": "net-1", "subnet": "subnet-1"}, tr.IDs())
	assert.Equal(t, map[string]string{"network": "net-1"}, tr.Persisted())

	restarted := tr.Restart()
	_, ok := restarted.ResourceID("subnet")
	assert.False(t, ok, "the ID that was not persisted is lost")
	id, ok := restarted.ResourceID("network")
	assert.True(t, ok)
	assert.Equal(t, "net-1", id)

	moved := tr.Moved()
	assert.Empty(t, moved.IDs(), "status is not moved")
	key, _ = moved.OwnershipKey()
	assert.Equal(t, "owner-1", key, "the ownership key label is")

	require.NoError(t, tr.DeleteResourceID("network"))
	_, ok = tr.ResourceID("network")
	assert.False(t, ok)
	require.ErrorIs(t, tr.SetResourceID("Not A Key", "x"), scope.ErrInvalidInput)
	require.ErrorIs(t, tr.SetResourceID("vm", ""), scope.ErrInvalidInput)

	_, err = scopetest.NewTracker("").OwnershipKey()
	require.ErrorIs(t, err, scope.ErrOwnershipKeyNotPersisted)
}
