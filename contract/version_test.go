package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseVersion(t *testing.T) {
	for _, s := range []string{"v1beta1", "v1beta2"} {
		v, err := parseVersion(s)
		require.NoError(t, err)
		assert.Equal(t, s, v.String())
		assert.True(t, v.Valid())
	}
	for _, s := range []string{"", "v1alpha4", "V1beta2", "v1beta3", " v1beta2"} {
		_, err := parseVersion(s)
		require.ErrorIs(t, err, ErrUnknownVersion, s)
		assert.Contains(t, err.Error(), `"`+s+`"`)
	}
	assert.Equal(t, []Version{V1Beta2, V1Beta1}, Versions, "newest first")
}
