package lint_test

import (
	"testing"
	"unicode"

	"github.com/capkit/capkit/contract/lint"
	"github.com/stretchr/testify/assert"
)

// hostileName clears the screen and starts a forged finding line.
const hostileName = "x\x1b[2J\nfake.yaml:1: all good"

// assertPrintableLine fails unless s is one line of printable text.
func assertPrintableLine(t *testing.T, s string) {
	t.Helper()
	for _, r := range s {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			assert.Failf(t, "not one printable line", "%q holds %q", s, r)
			return
		}
	}
}

// TestViolationStringIsOnePrintableLine: names, kinds, paths and messages from the input are printed on one
// line of printable text; anything else is quoted (names) or escaped (messages), never written raw.
func TestViolationStringIsOnePrintableLine(t *testing.T) {
	tests := map[string]struct {
		s    interface{ String() string }
		want string
	}{
		"object name": {
			lint.Violation{Rule: "crd.scope", Object: "CustomResourceDefinition/" + hostileName, Path: "spec.scope", Message: "wrong"},
			`"CustomResourceDefinition/x\x1b[2J\nfake.yaml:1: all good": crd.scope: spec.scope: wrong`,
		},
		"kind and path": {
			lint.Violation{Rule: "r", Object: "K\u202e", Path: "spec.a[\t]", Message: "m"},
			`"K\u202e": r: "spec.a[\t]": m`,
		},
		"message": {
			lint.Violation{Rule: "r", Message: "value \"\x1b[31m\" of " + hostileName},
			`r: value "\x1b[31m" of x\x1b[2J fake.yaml:1: all good`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := tt.s.String()
			assert.Equal(t, tt.want, got)
			assertPrintableLine(t, got)
		})
	}
}
