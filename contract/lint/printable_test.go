package lint_test

import (
	"errors"
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

// TestFindingStringIsOnePrintableLine: names, kinds, paths, files and messages from the input are printed on one
// line of printable text; anything else is quoted (names) or escaped (messages), never written raw.
func TestFindingStringIsOnePrintableLine(t *testing.T) {
	tests := map[string]struct {
		s    interface{ String() string }
		want string
	}{
		"object name": {
			lint.Finding{File: "crds.yaml", Line: 3, Violation: lint.Violation{Rule: "crd.scope", Object: "CustomResourceDefinition/" + hostileName, Path: "spec.scope", Message: "wrong"}},
			`crds.yaml:3: "CustomResourceDefinition/x\x1b[2J\nfake.yaml:1: all good": crd.scope: spec.scope: wrong`,
		},
		"kind and path": {
			lint.Violation{Rule: "r", Object: "K\u202e", Path: "spec.a[\t]", Message: "m"},
			`"K\u202e": r: "spec.a[\t]": m`,
		},
		"message": {
			lint.Violation{Rule: "r", Message: "value \"\x1b[31m\" of " + hostileName},
			`r: value "\x1b[31m" of x\x1b[2J fake.yaml:1: all good`,
		},
		"invalid UTF-8": {
			lint.Finding{File: "a\xffb.yaml", Violation: lint.Violation{Rule: "r", Message: "bad \xff byte"}},
			`"a\xffb.yaml": r: bad \xff byte`,
		},
		"file": {
			lint.Finding{File: "dir/\x1b]0;title\x07.yaml", Line: 1, Violation: lint.Violation{Rule: "r", Message: "m"}},
			`"dir/\x1b]0;title\a.yaml":1: r: m`,
		},
		"printable text stays as it is": {
			lint.Finding{File: "relé/crds.yaml", Line: 2, Violation: lint.Violation{Rule: "r", Object: "Kind/naïve", Message: `label "é" is wrong…`}},
			`relé/crds.yaml:2: Kind/naïve: r: label "é" is wrong…`,
		},
		"not checked": {
			lint.Unclassified{File: hostileName, Line: 4, Reason: "v1 " + hostileName + " in a metadata file: not checked"},
			`"x\x1b[2J\nfake.yaml:1: all good":4: v1 x\x1b[2J fake.yaml:1: all good in a metadata file: not checked`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := tt.s.String()
			assert.Equal(t, tt.want, got)
			assertPrintableLine(t, got)
		})
	}

	err := &lint.PositionError{File: hostileName, Line: 2, Err: errors.New("cannot decode \x1b[2J\nthis")}
	assert.Equal(t, `"x\x1b[2J\nfake.yaml:1: all good":2: cannot decode \x1b[2J this`, err.Error())
	assertPrintableLine(t, err.Error())
}
