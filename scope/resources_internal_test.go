package scope

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The fast path of ValidateResourceKey accepts exactly what the DNS-1123 label rule accepts.
func TestIsDNSLabelAgreesWithValidation(t *testing.T) {
	for _, key := range []string{"", "a", "vm", "lb-public", "a1", "1a", "-a", "a-", "a--b", "A", "a_b", "a.b", "ä",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "instance", "subnet-0", " a"} {
		assert.Equal(t, len(validation.IsDNS1123Label(key)) == 0, isDNSLabel(key), "key %q", key)
	}
}
