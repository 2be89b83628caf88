package v1beta2_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
)

func TestIsReservedTagKey(t *testing.T) {
	for key, want := range map[string]bool{
		"capkit.io/resource":                true,
		"capkit.io/ownership-key":           true,
		"memcloud.capkit.io/cluster":        true,
		"memcloud.capkit.io/instance-group": true,
		"other.capkit.io/x":                 true,
		"team":                              false,
		"capkit.io":                         false, // no prefix: a plain name
		"example.com/capkit.io":             false,
		"notcapkit.io/x":                    false,
		"capkit.io.example.com/x":           false,
	} {
		assert.Equal(t, want, v1beta2.IsReservedTagKey(key), key)
	}
}
